// Postman's assertions on a response, as a chai plugin (chai.use): status,
// header, body, jsonBody, jsonSchema, responseTime and the status-class
// properties (ok, success, error, clientError, ...), on pm.response and on
// pm.expect(pm.response). On anything that is not a response, chai's own
// meaning of a name it already has (ok) stays.
(function (rt) {
    'use strict';

    rt.chaiPostman = function chaiPostman(chai, utils) {
        var Assertion = chai.Assertion;

        function isResponse(value) {
            return value !== null && typeof value === 'object' && value[rt.responseMark] === true;
        }
        function responseOf(assertion, what) {
            var value = utils.flag(assertion, 'object');
            if (!isResponse(value))
                throw new chai.AssertionError('expected a response to check ' + what + ' of, got ' + utils.inspect(value));
            return value;
        }
        function jsonOf(response) {
            try {
                return {ok: true, value: JSON.parse(response.text())};
            } catch (error) {
                return {ok: false, error: error};
            }
        }
        // "a.b[0].c" in a parsed body.
        function pathIn(value, path) {
            var keys = String(path).replace(/\[(\w+)\]/g, '.$1').split('.').filter(function (key) { return key !== ''; });
            for (var i = 0; i < keys.length; ++i) {
                if (value === null || value === undefined || !Object.prototype.hasOwnProperty.call(Object(value), keys[i]))
                    return {found: false};
                value = value[keys[i]];
            }
            return {found: true, value: value};
        }

        Assertion.addMethod('status', function (expected) {
            var response = responseOf(this, 'the status');
            if (typeof expected === 'number') {
                this.assert(response.code === expected, 'expected response to have status code #{exp} but got #{act}',
                            'expected response to not have status code #{act}', expected, response.code);
            } else {
                this.assert(response.status === expected, 'expected response to have status reason #{exp} but got #{act}',
                            'expected response to not have status reason #{act}', expected, response.status);
            }
        });
        Assertion.addMethod('statusCodeClass', function (digit) {
            var response = responseOf(this, 'the status class');
            var actual = Math.floor(response.code / 100);
            this.assert(actual === digit, 'expected response code to be #{exp}XX but found #{act}',
                        'expected response code to not be #{exp}XX', digit, response.code);
        });
        Assertion.addMethod('statusReason', function (reason) {
            var response = responseOf(this, 'the status reason');
            this.assert(response.status === reason, 'expected response to have status reason #{exp} but got #{act}',
                        'expected response to not have status reason #{act}', reason, response.status);
        });

        Assertion.addMethod('header', function (name, value) {
            var response = responseOf(this, 'a header');
            var present = response.headers.has(name);
            if (arguments.length < 2) {
                this.assert(present, 'expected response to have header with key \'' + name + '\'',
                            'expected response to not have header with key \'' + name + '\'', true, present);
                return;
            }
            var actual = response.headers.get(name);
            this.assert(present && actual === value,
                        'expected \'' + name + '\' response header to be #{exp} but got #{act}',
                        'expected \'' + name + '\' response header to not be #{act}', value, actual);
        });

        Assertion.addMethod('body', function (expected) {
            var response = responseOf(this, 'the body');
            var text = response.text();
            if (arguments.length === 0) {
                this.assert(text.length > 0, 'expected response to have content in body',
                            'expected response to not have content in body', undefined, text);
            } else if (expected instanceof RegExp) {
                this.assert(expected.test(text), 'expected response body text to match #{exp} but got #{act}',
                            'expected response body text #{act} to not match #{exp}', expected, text);
            } else if (typeof expected === 'string') {
                this.assert(text === expected, 'expected response body to equal #{exp} but got #{act}',
                            'expected response body to not equal #{exp}', expected, text);
            } else {
                var json = jsonOf(response);
                this.assert(json.ok && utils.eql(json.value, expected), 'expected response body json to equal #{exp} but got #{act}',
                            'expected response body json to not equal #{exp}', expected, json.value, true);
            }
        });
        Assertion.addProperty('withBody', function () {
            var response = responseOf(this, 'the body');
            this.assert(response.text().length > 0, 'expected response to have content in body',
                        'expected response to not have content in body');
        });
        Assertion.addProperty('json', function () {
            var response = responseOf(this, 'the body');
            var json = jsonOf(response);
            this.assert(json.ok, 'expected response body to be a valid json but got error #{act}',
                        'expected response body to not be a valid json', undefined, json.ok ? undefined : json.error.message);
        });
        Assertion.addMethod('jsonBody', function (pathOrValue, value) {
            var response = responseOf(this, 'the JSON body');
            var json = jsonOf(response);
            if (!json.ok || arguments.length === 0) {
                this.assert(json.ok, 'expected response body to be a valid json but got error #{act}',
                            'expected response body to not be a valid json', undefined, json.ok ? undefined : json.error.message);
                return;
            }
            if (typeof pathOrValue !== 'string') {
                this.assert(utils.eql(json.value, pathOrValue), 'expected response body json to equal #{exp} but got #{act}',
                            'expected response body json to not equal #{exp}', pathOrValue, json.value, true);
                return;
            }
            var found = pathIn(json.value, pathOrValue);
            if (arguments.length < 2) {
                this.assert(found.found, 'expected #{act} in response to contain property #{exp}',
                            'expected #{act} in response to not contain property #{exp}', pathOrValue, json.value);
                return;
            }
            this.assert(found.found && utils.eql(found.value, value),
                        'expected response body json at "' + pathOrValue + '" to contain #{exp} but got #{act}',
                        'expected response body json at "' + pathOrValue + '" to not contain #{exp}', value, found.value, true);
        });
        // On a response its JSON body; on any other value (pm.expect(data)) the value itself.
        Assertion.addMethod('jsonSchema', function (schema) {
            var subject = utils.flag(this, 'object');
            var json = isResponse(subject) ? jsonOf(subject) : {ok: true, value: subject};
            var Ajv = rt.require('ajv');
            var ajv = new Ajv({allErrors: true, logger: false});
            var valid = json.ok && ajv.validate(schema, json.value);
            this.assert(valid, 'expected data to satisfy schema but found following errors: \n' +
                                   (json.ok ? ajv.errorsText() : 'the body is not JSON'),
                        'expected data to not satisfy schema', true, valid);
        });
        // responseTime, then a number's chains: to.have.responseTime.below(200).
        Assertion.addProperty('responseTime', function () {
            var response = responseOf(this, 'the response time');
            utils.flag(this, 'object', response.responseTime);
        });

        // The status classes and codes, as chai-postman names them.
        var classes = {
            info: [1, 1, '1XX'], success: [2, 2, '2XX'], redirection: [3, 3, '3XX'],
            clientError: [4, 4, '4XX'], serverError: [5, 5, '5XX'], error: [4, 5, '4XX or 5XX'],
        };
        var codes = {
            ok: 200, accepted: 202, withoutContent: 204, badRequest: 400, unauthorised: 401, unauthorized: 401,
            forbidden: 403, notFound: 404, notAcceptable: 406, rateLimited: 429,
        };
        function statusCheck(assertion, test, expectedText) {
            var response = utils.flag(assertion, 'object');
            assertion.assert(test(response.code), 'expected response code to be ' + expectedText + ' but found #{act}',
                             'expected response code to not be ' + expectedText + ' but found #{act}', expectedText, response.code);
        }
        function addStatusProperty(name, test, expectedText) {
            if (name in Assertion.prototype) {
                // ok: chai's truthiness on anything else.
                utils.overwriteProperty(Assertion.prototype, name, function (original) {
                    return function () {
                        if (isResponse(utils.flag(this, 'object')))
                            statusCheck(this, test, expectedText);
                        else
                            original.call(this);
                    };
                });
            } else {
                Assertion.addProperty(name, function () {
                    responseOf(this, 'the status');
                    statusCheck(this, test, expectedText);
                });
            }
        }
        Object.keys(classes).forEach(function (name) {
            var range = classes[name];
            addStatusProperty(name, function (code) {
                var digit = Math.floor(code / 100);
                return digit >= range[0] && digit <= range[1];
            }, range[2]);
        });
        Object.keys(codes).forEach(function (name) {
            addStatusProperty(name, function (code) { return code === codes[name]; }, String(codes[name]));
        });
    };
})
