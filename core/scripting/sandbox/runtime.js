// The sandbox's runtime, shared by both dialects: evaluated once per
// ScriptSandbox (scriptsandbox.cpp), it returns the object `rt` that the dialect
// files (postman.js, bruno.js) and the chai plugin (chaipostman.js) extend, and
// that runs each script. It defines the few globals every script and library
// sees (console, atob, btoa, setTimeout, crypto.getRandomValues and Postman's
// lazy `_`, `CryptoJS`, `tv4`); everything else a script sees is handed to it as
// a parameter, rebuilt from the C++ state for every run.
(function (host, global) {
    'use strict';

    var rt = {dialects: {}, host: host};
    // What marks pm.response for the chai plugin's response assertions.
    rt.responseMark = Symbol('retrylab.response');
    // The file name ScriptSandbox compiles every script under: the frame of an
    // error's stack that names it carries the script's line.
    var SCRIPT_FILE = 'retrylab-script';
    var MAX_CONSOLE_LINES = 1000;
    var libraries = {};
    var loading = {};
    var current = null;
    var timers = [];
    var timerSequence = 0;
    var baseline = null;

    function own(object, key) {
        return Object.prototype.hasOwnProperty.call(object, key);
    }
    rt.own = own;

    // A value as console.log prints it: text as it is, objects as JSON.
    function inspect(value) {
        if (typeof value === 'string')
            return value;
        if (value === undefined)
            return 'undefined';
        if (typeof value === 'function')
            return '[Function' + (value.name ? ': ' + value.name : '') + ']';
        if (typeof value === 'symbol')
            return value.toString();
        if (value instanceof Error)
            return String(value);
        if (value !== null && typeof value === 'object') {
            try {
                var json = JSON.stringify(value);
                if (json !== undefined)
                    return json;
            } catch (e) {
                // a cycle: fall back on its own text
            }
        }
        return String(value);
    }
    rt.inspect = inspect;

    function print(prefix, args) {
        if (!current)
            return;
        var lines = current.outcome.console;
        if (lines.length > MAX_CONSOLE_LINES)
            return;
        if (lines.length === MAX_CONSOLE_LINES) {
            lines.push('console: more than ' + MAX_CONSOLE_LINES + ' lines, the rest is dropped');
            return;
        }
        lines.push(prefix + Array.prototype.map.call(args, inspect).join(' '));
    }
    global.console = {
        log: function () { print('', arguments); },
        info: function () { print('info: ', arguments); },
        warn: function () { print('warn: ', arguments); },
        error: function () { print('error: ', arguments); },
        debug: function () { print('debug: ', arguments); },
    };

    global.atob = function atob(text) { return host.atob(String(text)); };
    global.btoa = function btoa(text) { return host.btoa(String(text)); };
    // crypto-js and uuid draw their random numbers from here, as in a browser.
    global.crypto = {
        getRandomValues: function getRandomValues(array) {
            var words = host.randomWords(array.length);
            for (var i = 0; i < array.length; ++i)
                array[i] = words[i];
            return array;
        },
    };

    // Timers run when the script's body has returned, in the order of their
    // delays, without waiting: there is no event loop between two scripts.
    global.setTimeout = function setTimeout(callback, delay) {
        var extra = Array.prototype.slice.call(arguments, 2);
        var timer = {id: ++timerSequence, due: Number(delay) || 0, callback: callback, args: extra};
        timers.push(timer);
        return timer.id;
    };
    global.clearTimeout = function clearTimeout(id) {
        timers = timers.filter(function (timer) { return timer.id !== id; });
    };
    global.setImmediate = function setImmediate(callback) {
        return global.setTimeout.apply(undefined, [callback, 0].concat(Array.prototype.slice.call(arguments, 1)));
    };
    global.clearImmediate = global.clearTimeout;

    function drainTimers() {
        while (timers.length > 0) {
            timers.sort(function (a, b) { return a.due - b.due || a.id - b.id; });
            var timer = timers.shift();
            if (typeof timer.callback === 'function')
                timer.callback.apply(undefined, timer.args);
        }
    }

    // A thing Postman's sandbox has and this runner does not: calling it throws
    // an error naming it; reading a property of it gives another such thing, so
    // that pm.vault.get() names pm.vault.get.
    var NOT_PATHS = ['toJSON', 'then', 'inspect', 'constructor', 'valueOf', 'prototype', 'length', 'name'];
    rt.missing = function missing(path, why) {
        var fail = function () {
            throw new TypeError(path + ' is not a function in this runner' + (why ? ' (' + why + ')' : ''));
        };
        return new Proxy(fail, {
            get: function (target, key) {
                if (typeof key !== 'string' || NOT_PATHS.indexOf(key) >= 0)
                    return undefined;
                if (key === 'toString')
                    return function () { return '[' + path + ': not in this runner]'; };
                return rt.missing(path + '.' + key);
            },
            apply: function () { return fail(); },
        });
    };
    // `object` (pm, bru) with every name it lacks turned into rt.missing.
    rt.guard = function guard(object, path) {
        return new Proxy(object, {
            get: function (target, key, receiver) {
                if (typeof key !== 'string' || key in target || NOT_PATHS.indexOf(key) >= 0 || key === 'toString')
                    return Reflect.get(target, key, receiver);
                return rt.missing(path + '.' + key);
            },
        });
    };
    rt.unavailable = function unavailable(path, why) {
        return function () {
            throw new Error(path + ' is not available in this runner: ' + why);
        };
    };

    // require(): each library's bundle is compiled the first time a script asks
    // for it and kept for the sandbox's next scripts.
    rt.require = function require(name) {
        name = String(name);
        if (own(libraries, name))
            return libraries[name];
        var factory = host.compileLibrary(name);
        var module = {exports: {}};
        // As under Node: `global` is the global object (crypto-js finds
        // global.crypto there; Qt 6.4's engine has no globalThis).
        loading[name] = true;
        try {
            factory.call(module.exports, module, module.exports, undefined, undefined, global);
        } finally {
            delete loading[name];
        }
        var exported = module.exports;
        if (name === 'chai')
            exported.use(rt.chaiPostman);
        libraries[name] = exported;
        return exported;
    };
    rt.chai = function chai() {
        return rt.require('chai');
    };
    rt.libraries = function () {
        return Object.keys(libraries);
    };

    function lazyGlobal(name, library) {
        Object.defineProperty(global, name, {
            configurable: true,
            enumerable: false,
            // lodash reads the global `_` while it loads (for noConflict):
            // it sees none then, rather than loading itself again.
            get: function () { return loading[library] ? undefined : rt.require(library); },
        });
    }
    // The Postman sandbox's own globals for three of its libraries.
    lazyGlobal('_', 'lodash');
    lazyGlobal('CryptoJS', 'crypto-js');
    lazyGlobal('tv4', 'tv4');
    global.cheerio = rt.missing('cheerio');
    global.xml2Json = rt.missing('xml2Json');

    // The message and line of an exception no test caught.
    rt.describeError = function describeError(error) {
        var message;
        if (error !== null && typeof error === 'object' && typeof error.message === 'string')
            message = (error.name ? error.name + ': ' : '') + error.message;
        else
            message = 'Uncaught ' + inspect(error);
        return {message: message, line: rt.scriptLine(error)};
    };
    // What a failed test says: an assertion's message as it is, any other
    // error with its kind ("TypeError: ...").
    rt.testFailure = function testFailure(error) {
        if (error !== null && typeof error === 'object' && typeof error.message === 'string')
            return error.name === 'AssertionError' || !error.name ? error.message : error.name + ': ' + error.message;
        return inspect(error);
    };
    rt.scriptLine = function scriptLine(error) {
        if (error === null || typeof error !== 'object')
            return 0;
        if (typeof error.stack === 'string') {
            var frame = new RegExp(SCRIPT_FILE + ':(\\d+)').exec(error.stack);
            if (frame)
                return Number(frame[1]);
        }
        if (typeof error.fileName === 'string' && error.fileName.indexOf(SCRIPT_FILE) >= 0)
            return Number(error.lineNumber) || 0;
        return 0;
    };

    rt.current = function () {
        return current;
    };

    // Runs one compiled script (a function taking the dialect's parameters and
    // returning the script's body as a function) against `ctx`, the state
    // ScriptSandbox built: ctx.outcome collects what it did, and the API writes
    // its changes into ctx.scopes and ctx.request.
    rt.run = function run(ctx, compiled) {
        current = ctx;
        timers = [];
        ctx.outcome = {tests: [], console: [], nextRequest: undefined, skipRequest: false, error: null};
        var api = rt.dialects[ctx.dialect].build(ctx);
        try {
            var body = compiled.apply(undefined, api.values);
            body();
            drainTimers();
        } catch (error) {
            ctx.outcome.error = rt.describeError(error);
        }
        try {
            api.finish();
        } catch (error) {
            if (!ctx.outcome.error)
                ctx.outcome.error = rt.describeError(error);
        }
        rt.cleanup();
    };

    rt.parameterNames = function parameterNames(dialect) {
        return rt.dialects[dialect].names.join(', ');
    };

    // Called once the dialects are in: what the global object holds now is the
    // sandbox's; what a script adds to it (an undeclared assignment) is removed
    // after the script, so that it does not reach the next one.
    rt.sealGlobals = function sealGlobals() {
        baseline = {};
        Object.getOwnPropertyNames(global).forEach(function (name) { baseline[name] = true; });
    };
    rt.cleanup = function cleanup() {
        current = null;
        timers = [];
        if (!baseline)
            return;
        Object.getOwnPropertyNames(global).forEach(function (name) {
            if (!own(baseline, name))
                delete global[name];
        });
    };

    return rt;
})
