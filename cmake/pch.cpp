// The translation unit that makes a shared precompiled header (see
// retrylab_share_test_pch() in RetryLabTest.cmake); it has no code of its own.
