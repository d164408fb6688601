// The translation unit that makes a shared precompiled header (see
// retrylab_reuse_pch() in RetryLabModule.cmake and retrylab_share_test_pch() in
// RetryLabTest.cmake); it has no code of its own.
