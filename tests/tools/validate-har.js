#!/usr/bin/env node
// Validates HAR files against the HAR 1.2 schema of the har-validator package.
// Usage: node validate-har.js FILE.har...
// Exit codes: 0 every file is valid, 1 a file is invalid or unreadable,
// 3 har-validator is not installed (run `npm ci` in the directory that holds
// package.json, or set NODE_PATH to its node_modules).
'use strict';

const fs = require('fs');

let validator;
try {
    validator = require('har-validator');
} catch (error) {
    console.error(`har-validator is not installed: ${error.message}`);
    process.exit(3);
}

async function validateFile(file) {
    let har;
    try {
        har = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
        console.error(`${file}: cannot read: ${error.message}`);
        return false;
    }
    try {
        await validator.har(har);
        console.log(`${file}: valid HAR`);
        return true;
    } catch (error) {
        console.error(`${file}: invalid HAR`);
        for (const problem of error.errors || [error]) {
            const where = problem.dataPath || problem.instancePath || '';
            console.error(`  ${where} ${problem.message}`);
        }
        return false;
    }
}

async function main() {
    const files = process.argv.slice(2);
    if (files.length === 0) {
        console.error('usage: node validate-har.js FILE.har...');
        process.exit(1);
    }
    let ok = true;
    for (const file of files)
        ok = (await validateFile(file)) && ok;
    process.exit(ok ? 0 : 1);
}

main();
