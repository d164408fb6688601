// Bruno's script API (bru, req, res, test, expect) over the state ScriptSandbox
// hands in (see postman.js): bru's runtime variables are the run's own scope
// (ctx.scopes.local), its environment variables ctx.scopes.environment.
(function (rt) {
    'use strict';

    var own = rt.own;

    function headerIndex(headers, name) {
        var lower = String(name).toLowerCase();
        for (var i = headers.length - 1; i >= 0; --i) {
            if (String(headers[i].key).toLowerCase() === lower)
                return i;
        }
        return -1;
    }
    function looksJson(contentType, text) {
        return /json/i.test(contentType || '') || /^\s*[\[{]/.test(text);
    }
    function parsedBody(contentType, text) {
        if (!looksJson(contentType, text))
            return text;
        try {
            return JSON.parse(text);
        } catch (error) {
            return text;
        }
    }
    // "data.items[0].id" in a parsed body, as Bruno's res("...") reads it.
    function pathIn(value, path) {
        var keys = String(path).replace(/\[(\w+)\]/g, '.$1').split('.').filter(function (key) { return key !== ''; });
        for (var i = 0; i < keys.length && value !== undefined && value !== null; ++i)
            value = value[keys[i]];
        return value;
    }

    function buildRequest(request) {
        function contentType() {
            var index = headerIndex(request.headers, 'content-type');
            return index >= 0 ? request.headers[index].value : '';
        }
        return {
            getUrl: function () { return request.url; },
            setUrl: function (url) { request.url = String(url); },
            getMethod: function () { return request.method; },
            setMethod: function (method) { request.method = String(method).toUpperCase(); },
            getName: function () { return request.name; },
            getHeader: function (name) {
                var index = headerIndex(request.headers, name);
                return index >= 0 ? request.headers[index].value : undefined;
            },
            getHeaders: function () {
                var object = {};
                request.headers.forEach(function (entry) { object[entry.key] = entry.value; });
                return object;
            },
            setHeader: function (name, value) {
                var index = headerIndex(request.headers, name);
                if (index >= 0)
                    request.headers[index] = {key: request.headers[index].key, value: String(value)};
                else
                    request.headers.push({key: String(name), value: String(value)});
            },
            setHeaders: function (headers) {
                var self = this;
                Object.keys(headers).forEach(function (name) { self.setHeader(name, headers[name]); });
            },
            deleteHeader: function (name) {
                var index;
                while ((index = headerIndex(request.headers, name)) >= 0)
                    request.headers.splice(index, 1);
            },
            getBody: function () { return parsedBody(contentType(), request.body); },
            setBody: function (body) {
                request.body = typeof body === 'string' ? body : JSON.stringify(body);
            },
        };
    }

    function buildResponse(response) {
        var headers = {};
        response.headers.forEach(function (entry) { headers[String(entry.key).toLowerCase()] = entry.value; });
        var body = parsedBody(headers['content-type'], response.body);
        // res("path") reads the body, as in Bruno.
        var res = function (path) { return pathIn(body, path); };
        res.status = response.code;
        res.statusText = response.status;
        res.headers = headers;
        res.body = body;
        res.responseTime = response.responseTime;
        res.getStatus = function () { return response.code; };
        res.getStatusText = function () { return response.status; };
        res.getHeader = function (name) { return headers[String(name).toLowerCase()]; };
        res.getHeaders = function () { return Object.assign({}, headers); };
        res.getBody = function () { return res.body; };
        res.setBody = function (value) { res.body = value; };
        res.getResponseTime = function () { return response.responseTime; };
        return res;
    }

    function build(ctx) {
        var outcome = ctx.outcome;
        var scopes = ctx.scopes;
        var prerequest = ctx.info.eventName === 'prerequest';

        function variable(store) {
            return {
                get: function (key) { return own(store, key) ? store[key] : undefined; },
                set: function (key, value) { store[String(key)] = value; },
                has: function (key) { return own(store, key); },
                remove: function (key) { delete store[key]; },
            };
        }
        var runtime = variable(scopes.local);
        var environment = variable(scopes.environment);
        var globals = variable(scopes.globals);
        function setNextRequest(name) {
            outcome.nextRequest = name === null || name === undefined ? null : String(name);
        }
        var bru = {
            getVar: runtime.get, setVar: runtime.set, hasVar: runtime.has, deleteVar: runtime.remove,
            getEnvVar: environment.get, setEnvVar: environment.set, hasEnvVar: environment.has,
            deleteEnvVar: environment.remove,
            getGlobalEnvVar: globals.get, setGlobalEnvVar: globals.set,
            getCollectionVar: variable(scopes.collection).get,
            getRequestVar: function (key) {
                return own(scopes.data, key) ? scopes.data[key] : undefined;
            },
            getProcessEnv: function (name) {
                console.warn('bru.getProcessEnv("' + name + '"): the process environment is not available to '
                             + 'scripts in this runner; it returns undefined');
                return undefined;
            },
            getEnvName: function () { return undefined; },
            interpolate: function (text) { return rt.host.replaceIn(String(text), scopes); },
            setNextRequest: setNextRequest,
            runner: {
                setNextRequest: setNextRequest,
                skipRequest: function () {
                    if (!prerequest)
                        throw new Error('bru.runner.skipRequest works in a pre-request script only');
                    outcome.skipRequest = true;
                },
                stopExecution: function () { outcome.nextRequest = null; },
            },
            sendRequest: rt.unavailable('bru.sendRequest', 'a script may not send requests of its own'),
            sleep: rt.missing('bru.sleep', 'scripts run without waiting'),
        };

        function test(name, callback) {
            var entry = {name: String(name), passed: true, skipped: false, error: ''};
            try {
                callback();
            } catch (error) {
                entry.passed = false;
                entry.error = rt.testFailure(error);
            }
            outcome.tests.push(entry);
        }
        // chai, loaded when a script first asks.
        function expect(value, message) {
            return rt.chai().expect(value, message);
        }
        expect.fail = function () {
            var chaiExpect = rt.chai().expect;
            return chaiExpect.fail.apply(chaiExpect, arguments);
        };

        var values = {
            bru: rt.guard(bru, 'bru'),
            req: buildRequest(ctx.request),
            res: ctx.response ? buildResponse(ctx.response) : undefined,
            test: test,
            expect: expect,
            require: rt.require,
        };
        return {
            values: NAMES.map(function (name) { return values[name]; }),
            finish: function () {},
        };
    }

    var NAMES = ['bru', 'req', 'res', 'test', 'expect', 'require'];
    rt.dialects.bruno = {names: NAMES, build: build};
})
