// Postman's script API (the `pm` object and the legacy globals) over the state
// ScriptSandbox hands in: ctx.scopes (the variable scopes, plain objects of any
// JSON value), ctx.request, ctx.response (null before the request), ctx.info.
// Every change a script makes goes straight into ctx, which C++ reads back.
(function (rt) {
    'use strict';

    var own = rt.own;

    function hidden(object, name, value) {
        Object.defineProperty(object, name, {value: value, enumerable: false, writable: true});
    }

    // pm.environment, pm.globals, pm.collectionVariables: one scope each.
    function VariableScope(store, scopeName) {
        hidden(this, '_store', store);
        hidden(this, '_scopeName', scopeName);
    }
    VariableScope.prototype.get = function (key) {
        return own(this._store, key) ? this._store[key] : undefined;
    };
    VariableScope.prototype.set = function (key, value) {
        this._store[String(key)] = value;
    };
    VariableScope.prototype.has = function (key) {
        return own(this._store, key);
    };
    VariableScope.prototype.unset = function (key) {
        delete this._store[key];
    };
    VariableScope.prototype.clear = function () {
        var store = this._store;
        Object.keys(store).forEach(function (key) { delete store[key]; });
    };
    VariableScope.prototype.toObject = function () {
        return Object.assign({}, this._store);
    };
    VariableScope.prototype.toJSON = function () {
        var store = this._store;
        return {values: Object.keys(store).map(function (key) { return {key: key, value: store[key]}; })};
    };
    VariableScope.prototype.replaceIn = function (text) {
        var only = {};
        only[this._scopeName] = this._store;
        return rt.host.replaceIn(String(text), only);
    };

    // Narrowest first, as ScriptScopes::resolve.
    var SCOPE_ORDER = ['local', 'data', 'environment', 'collection', 'globals'];

    // pm.variables: reads through every scope, writes the run's own (local).
    function Variables(scopes) {
        hidden(this, '_scopes', scopes);
    }
    Variables.prototype.get = function (key) {
        for (var i = 0; i < SCOPE_ORDER.length; ++i) {
            var scope = this._scopes[SCOPE_ORDER[i]];
            if (own(scope, key))
                return scope[key];
        }
        return undefined;
    };
    Variables.prototype.has = function (key) {
        var scopes = this._scopes;
        return SCOPE_ORDER.some(function (name) { return own(scopes[name], key); });
    };
    Variables.prototype.set = function (key, value) {
        this._scopes.local[String(key)] = value;
    };
    Variables.prototype.unset = function (key) {
        delete this._scopes.local[key];
    };
    Variables.prototype.clear = function () {
        var local = this._scopes.local;
        Object.keys(local).forEach(function (key) { delete local[key]; });
    };
    Variables.prototype.toObject = function () {
        var merged = {};
        for (var i = SCOPE_ORDER.length - 1; i >= 0; --i)
            Object.assign(merged, this._scopes[SCOPE_ORDER[i]]);
        return merged;
    };
    Variables.prototype.replaceIn = function (text) {
        return rt.host.replaceIn(String(text), this._scopes);
    };

    function IterationData(store) {
        hidden(this, '_store', store);
    }
    IterationData.prototype.get = VariableScope.prototype.get;
    IterationData.prototype.has = VariableScope.prototype.has;
    IterationData.prototype.toObject = VariableScope.prototype.toObject;
    IterationData.prototype.toJSON = VariableScope.prototype.toJSON;

    // A list of {key, value}, matched without regard to case: request and
    // response headers, a URL's query. `entries` is the list ctx holds, so that
    // a change is the request's; null `owner` means read-only.
    function KeyList(entries, owner, caseless) {
        hidden(this, '_entries', entries);
        hidden(this, '_owner', owner);
        hidden(this, '_caseless', caseless);
    }
    KeyList.prototype._same = function (a, b) {
        return this._caseless ? String(a).toLowerCase() === String(b).toLowerCase() : String(a) === String(b);
    };
    KeyList.prototype._writable = function () {
        if (!this._owner)
            throw new TypeError('the response\'s headers cannot be changed');
        return this._entries;
    };
    KeyList.prototype._changed = function () {
        if (this._owner && this._owner.changed)
            this._owner.changed();
    };
    KeyList.prototype.one = function (key) {
        var found;
        var self = this;
        this._entries.forEach(function (entry) {
            if (self._same(entry.key, key))
                found = entry;
        });
        return found ? {key: found.key, value: found.value} : undefined;
    };
    KeyList.prototype.get = function (key) {
        var entry = this.one(key);
        return entry ? entry.value : undefined;
    };
    KeyList.prototype.has = function (key, value) {
        var self = this;
        return this._entries.some(function (entry) {
            return self._same(entry.key, key) && (value === undefined || entry.value === value);
        });
    };
    KeyList.prototype.all = function () {
        return this._entries.map(function (entry) { return {key: entry.key, value: entry.value}; });
    };
    KeyList.prototype.count = function () {
        return this._entries.length;
    };
    KeyList.prototype.each = function (callback) {
        this.all().forEach(function (entry) { callback(entry); });
    };
    KeyList.prototype.map = function (callback) {
        return this.all().map(function (entry) { return callback(entry); });
    };
    KeyList.prototype.filter = function (callback) {
        return this.all().filter(function (entry) { return callback(entry); });
    };
    KeyList.prototype.find = function (callback) {
        return this.all().find(function (entry) { return callback(entry); });
    };
    KeyList.prototype.toObject = function () {
        var self = this;
        var object = {};
        this._entries.forEach(function (entry) {
            object[self._caseless ? String(entry.key).toLowerCase() : entry.key] = entry.value;
        });
        return object;
    };
    KeyList.prototype.toJSON = KeyList.prototype.all;
    function keyValue(item, value) {
        if (item !== null && typeof item === 'object')
            return {key: String(item.key), value: item.value === undefined ? '' : String(item.value)};
        if (value !== undefined)
            return {key: String(item), value: String(value)};
        var text = String(item);
        var colon = text.indexOf(':');
        return colon < 0 ? {key: text.trim(), value: ''}
                         : {key: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim()};
    }
    KeyList.prototype.add = function (item, value) {
        this._writable().push(keyValue(item, value));
        this._changed();
    };
    KeyList.prototype.upsert = function (item, value) {
        var entry = keyValue(item, value);
        var entries = this._writable();
        var self = this;
        var first = -1;
        for (var i = entries.length - 1; i >= 0; --i) {
            if (self._same(entries[i].key, entry.key)) {
                if (first >= 0)
                    entries.splice(first, 1);
                first = i;
            }
        }
        if (first >= 0)
            entries[first] = {key: entries[first].key, value: entry.value};
        else
            entries.push(entry);
        this._changed();
    };
    KeyList.prototype.remove = function (keyOrTest) {
        var entries = this._writable();
        for (var i = entries.length - 1; i >= 0; --i) {
            var match = typeof keyOrTest === 'function' ? keyOrTest(entries[i]) : this._same(entries[i].key, keyOrTest);
            if (match)
                entries.splice(i, 1);
        }
        this._changed();
    };
    KeyList.prototype.clear = function () {
        this._writable().length = 0;
        this._changed();
    };
    KeyList.prototype.toString = function () {
        return this._entries.map(function (entry) { return entry.key + ': ' + entry.value + '\n'; }).join('');
    };

    // A URL's parts, from its text; {{variables}} in it stay as written.
    var URL_PARTS = /^(?:([A-Za-z][A-Za-z0-9+.\-]*):\/\/)?([^\/?#]*)([^?#]*)(?:\?([^#]*))?(?:#([\s\S]*))?$/;
    function splitUrl(text) {
        var parts = URL_PARTS.exec(text) || [text, undefined, '', text, undefined, undefined];
        var authority = parts[2] || '';
        var at = authority.lastIndexOf('@');
        var hostPort = at >= 0 ? authority.slice(at + 1) : authority;
        var port = /:(\d*|\{\{[^}]*\}\})$/.exec(hostPort);
        return {
            protocol: parts[1],
            auth: at >= 0 ? authority.slice(0, at) : undefined,
            host: port ? hostPort.slice(0, port.index) : hostPort,
            port: port ? port[1] : undefined,
            path: parts[3] || '',
            query: parts[4],
            hash: parts[5],
        };
    }

    // pm.request.url.query: the query's pairs; a change rewrites the URL's text.
    function queryOwner(request) {
        var owner = {
            entries: [],
            read: function () {
                var query = splitUrl(request.url).query;
                owner.entries.length = 0;
                if (query)
                    query.split('&').forEach(function (pair) {
                        var equals = pair.indexOf('=');
                        owner.entries.push(equals < 0 ? {key: pair, value: null}
                                                      : {key: pair.slice(0, equals), value: pair.slice(equals + 1)});
                    });
            },
            changed: function () {
                var text = request.url;
                var cut = text.search(/[?#]/);
                var base = cut < 0 ? text : text.slice(0, cut);
                var hash = splitUrl(text).hash;
                var query = owner.entries.map(function (entry) {
                    return entry.value === null || entry.value === undefined ? entry.key : entry.key + '=' + entry.value;
                }).join('&');
                request.url = base + (query ? '?' + query : '') + (hash !== undefined ? '#' + hash : '');
            },
        };
        owner.read();
        return owner;
    }

    function Url(request) {
        hidden(this, '_request', request);
    }
    Url.prototype.toString = function () {
        return this._request.url;
    };
    Url.prototype.toJSON = function () {
        return {raw: this._request.url};
    };
    Url.prototype.update = function (text) {
        this._request.url = String(text);
    };
    Object.defineProperties(Url.prototype, {
        protocol: {get: function () { return splitUrl(this._request.url).protocol; }},
        port: {get: function () { return splitUrl(this._request.url).port; }},
        hash: {get: function () { return splitUrl(this._request.url).hash; }},
        host: {get: function () { return splitUrl(this._request.url).host.split('.'); }},
        path: {get: function () { return splitUrl(this._request.url).path.split('/').filter(Boolean); }},
        query: {get: function () { var owner = queryOwner(this._request); return new KeyList(owner.entries, owner, false); }},
    });
    Url.prototype.getHost = function () {
        return splitUrl(this._request.url).host;
    };
    Url.prototype.getRemote = function () {
        var parts = splitUrl(this._request.url);
        return parts.host + (parts.port ? ':' + parts.port : '');
    };
    Url.prototype.getPath = function () {
        return splitUrl(this._request.url).path || '/';
    };
    Url.prototype.getQueryString = function () {
        return splitUrl(this._request.url).query || '';
    };
    Url.prototype.getPathWithQuery = function () {
        var query = this.getQueryString();
        return this.getPath() + (query ? '?' + query : '');
    };
    Url.prototype.addQueryParams = function (params) {
        var query = this.query;
        if (typeof params === 'string')
            params = params.split('&').filter(Boolean);
        params.forEach(function (param) {
            if (typeof param === 'string') {
                var equals = param.indexOf('=');
                param = equals < 0 ? {key: param, value: null} : {key: param.slice(0, equals), value: param.slice(equals + 1)};
            }
            query._entries.push({key: String(param.key), value: param.value === undefined ? null : param.value});
        });
        query._changed();
    };
    Url.prototype.removeQueryParams = function (names) {
        var query = this.query;
        [].concat(names).forEach(function (name) {
            query.remove(typeof name === 'object' && name !== null ? name.key : name);
        });
    };

    function RequestBody(request) {
        hidden(this, '_request', request);
        this.mode = 'raw';
    }
    Object.defineProperty(RequestBody.prototype, 'raw', {
        enumerable: true,
        get: function () { return this._request.body; },
        set: function (text) { this._request.body = text === undefined || text === null ? '' : String(text); },
    });
    RequestBody.prototype.toString = function () {
        return this._request.body;
    };
    RequestBody.prototype.isEmpty = function () {
        return this._request.body === '';
    };
    RequestBody.prototype.update = function (body) {
        this.raw = body !== null && typeof body === 'object' ? body.raw : body;
    };
    RequestBody.prototype.toJSON = function () {
        return {mode: 'raw', raw: this._request.body};
    };

    // pm.request: its changes in a pre-request script are what the runner sends.
    function Request(request) {
        hidden(this, '_request', request);
        this.id = request.id;
        this.name = request.name;
        this.headers = new KeyList(request.headers, {}, true);
        hidden(this, '_body', new RequestBody(request));
    }
    Object.defineProperties(Request.prototype, {
        url: {
            enumerable: true,
            get: function () { return new Url(this._request); },
            set: function (url) { this._request.url = String(url); },
        },
        method: {
            enumerable: true,
            get: function () { return this._request.method; },
            set: function (method) { this._request.method = String(method).toUpperCase(); },
        },
        body: {
            enumerable: true,
            get: function () { return this._body; },
            set: function (body) { this._body.update(body); },
        },
    });
    Request.prototype.addHeader = function (header) { this.headers.add(header); };
    Request.prototype.upsertHeader = function (header) { this.headers.upsert(header); };
    Request.prototype.removeHeader = function (name) { this.headers.remove(name); };
    Request.prototype.getHeaders = function () {
        var object = {};
        this._request.headers.forEach(function (entry) { object[entry.key] = entry.value; });
        return object;
    };
    Request.prototype.toJSON = function () {
        return {id: this.id, name: this.name, method: this.method, url: this._request.url,
                header: this.headers.all(), body: this._body.toJSON()};
    };

    function parseCookies(headers) {
        var cookies = [];
        headers.forEach(function (entry) {
            if (String(entry.key).toLowerCase() !== 'set-cookie')
                return;
            var pair = String(entry.value).split(';')[0];
            var equals = pair.indexOf('=');
            if (equals > 0)
                cookies.push({key: pair.slice(0, equals).trim(), value: pair.slice(equals + 1).trim()});
        });
        return cookies;
    }
    function Cookies(entries) {
        KeyList.call(this, entries, null, false);
        this.jar = rt.missing('pm.cookies.jar', 'there is no cookie jar');
    }
    Cookies.prototype = Object.create(KeyList.prototype);

    // pm.response, a marked object the chai plugin recognises.
    function Response(response) {
        this.code = response.code;
        this.status = response.status;
        this.responseTime = response.responseTime;
        this.responseSize = response.size;
        this.headers = new KeyList(response.headers, null, true);
        hidden(this, '_text', response.body);
        hidden(this, rt.responseMark, true);
    }
    Response.prototype.text = function () {
        return this._text;
    };
    Response.prototype.json = function () {
        try {
            return JSON.parse(this._text);
        } catch (error) {
            var failure = new SyntaxError('the response body is not JSON: ' + error.message);
            failure.name = 'JSONError';
            throw failure;
        }
    };
    Response.prototype.reason = function () {
        return this.status;
    };
    Response.prototype.size = function () {
        return {body: this.responseSize, header: 0, total: this.responseSize};
    };
    Object.defineProperty(Response.prototype, 'to', {
        get: function () { return rt.chai().expect(this).to; },
    });
    Object.defineProperty(Response.prototype, 'cookies', {
        get: function () { return new Cookies(parseCookies(this.headers._entries)); },
    });

    function build(ctx) {
        var outcome = ctx.outcome;
        var scopes = ctx.scopes;
        var prerequest = ctx.info.eventName === 'prerequest';
        var pending = [];

        function record(name, error, skipped) {
            var entry = {name: String(name), passed: error === undefined, skipped: !!skipped,
                         error: error === undefined ? '' : rt.testFailure(error)};
            outcome.tests.push(entry);
            return entry;
        }
        function setNextRequest(name) {
            outcome.nextRequest = name === null || name === undefined ? null : String(name);
        }

        var pm = {};
        var response = ctx.response ? new Response(ctx.response) : undefined;
        pm.test = function test(name, callback) {
            if (typeof callback !== 'function') {
                record(name, undefined, true);
                return pm;
            }
            if (callback.length === 0) {
                try {
                    callback();
                    record(name);
                } catch (error) {
                    record(name, error);
                }
                return pm;
            }
            // test(name, function (done) {...}): passed or failed when done() is called.
            var entry = record(name);
            var state = {entry: entry, settled: false};
            pending.push(state);
            var done = function (error) {
                if (state.settled)
                    return;
                state.settled = true;
                if (error) {
                    entry.passed = false;
                    entry.error = rt.testFailure(error);
                }
            };
            try {
                callback(done);
            } catch (error) {
                done(error === undefined || error === null ? new Error('the test threw ' + error) : error);
            }
            return pm;
        };
        pm.test.skip = function skip(name) {
            record(name, undefined, true);
            return pm;
        };
        Object.defineProperty(pm, 'expect', {enumerable: true, get: function () { return rt.chai().expect; }});
        pm.response = response;
        pm.request = new Request(ctx.request);
        pm.environment = new VariableScope(scopes.environment, 'environment');
        pm.collectionVariables = new VariableScope(scopes.collection, 'collection');
        pm.globals = new VariableScope(scopes.globals, 'globals');
        pm.variables = new Variables(scopes);
        pm.iterationData = new IterationData(scopes.data);
        pm.info = {
            eventName: ctx.info.eventName,
            iteration: ctx.info.iteration,
            iterationCount: ctx.info.iterationCount,
            requestName: ctx.info.requestName,
            requestId: ctx.info.requestId,
        };
        pm.setNextRequest = setNextRequest;
        pm.execution = {
            setNextRequest: setNextRequest,
            skipRequest: function skipRequest() {
                if (!prerequest)
                    throw new Error('pm.execution.skipRequest works in a pre-request script only');
                outcome.skipRequest = true;
            },
            location: [ctx.info.requestName],
        };
        pm.cookies = new Cookies(response ? parseCookies(ctx.response.headers) : []);
        pm.sendRequest = rt.unavailable('pm.sendRequest', 'a script may not send requests of its own');
        // Postman's visualizer draws in its window; a headless run has none to draw in.
        pm.visualizer = {set: function () {}, clear: function () {}};
        pm.require = rt.missing('pm.require', 'no package library');

        // The legacy API, which old collections still use.
        var tests = {};
        var legacyObject = function (store) { return Object.assign({}, store); };
        var postman = {
            setEnvironmentVariable: function (key, value) { scopes.environment[String(key)] = value; },
            getEnvironmentVariable: function (key) { return pm.environment.get(key); },
            clearEnvironmentVariable: function (key) { delete scopes.environment[key]; },
            clearEnvironmentVariables: function () { pm.environment.clear(); },
            setGlobalVariable: function (key, value) { scopes.globals[String(key)] = value; },
            getGlobalVariable: function (key) { return pm.globals.get(key); },
            clearGlobalVariable: function (key) { delete scopes.globals[key]; },
            clearGlobalVariables: function () { pm.globals.clear(); },
            setNextRequest: setNextRequest,
            getResponseHeader: function (name) { return response ? response.headers.get(name) : undefined; },
            getResponseCookie: function (name) {
                var value = pm.cookies.get(name);
                return value === undefined ? undefined : {name: name, value: value};
            },
        };
        var legacyRequest = {
            id: ctx.request.id, name: ctx.request.name, url: ctx.request.url, method: ctx.request.method,
            headers: pm.request.getHeaders(), data: ctx.request.body,
        };
        var values = {
            pm: rt.guard(pm, 'pm'),
            postman: rt.guard(postman, 'postman'),
            tests: tests,
            responseBody: response ? response.text() : undefined,
            responseCode: response ? {code: response.code, name: response.status, detail: response.status} : undefined,
            responseHeaders: response ? (function () {
                var object = {};
                ctx.response.headers.forEach(function (entry) { object[entry.key] = entry.value; });
                return object;
            })() : undefined,
            responseTime: response ? response.responseTime : undefined,
            responseCookies: response ? pm.cookies.all().map(function (c) { return {name: c.key, value: c.value}; }) : undefined,
            request: legacyRequest,
            environment: legacyObject(scopes.environment),
            globals: legacyObject(scopes.globals),
            data: legacyObject(scopes.data),
            iteration: ctx.info.iteration,
            require: rt.require,
        };
        return {
            values: NAMES.map(function (name) { return values[name]; }),
            finish: function () {
                Object.keys(tests).forEach(function (name) {
                    outcome.tests.push({name: name, passed: !!tests[name], skipped: false,
                                        error: tests[name] ? '' : 'tests["' + name + '"] is ' + rt.inspect(tests[name])});
                });
                pending.forEach(function (state) {
                    if (state.settled)
                        return;
                    state.entry.passed = false;
                    state.entry.error = 'the test never called its done callback';
                });
            },
        };
    }

    var NAMES = ['pm', 'postman', 'tests', 'responseBody', 'responseCode', 'responseHeaders', 'responseTime',
                 'responseCookies', 'request', 'environment', 'globals', 'data', 'iteration', 'require'];
    rt.dialects.postman = {names: NAMES, build: build};
})
