// toxiproxy's own Node.js client (toxiproxy-node-client from the npm registry)
// driving RetryLab's toxiproxy API, as a suite written for toxiproxy would.
// Usage: node toxiproxyclient.js API_URL UPSTREAM_HOST:PORT (a Redis server).
// Prints one line per step: "step NAME key=value ..."; exits 1 on the first
// expectation that fails, naming it.
'use strict';

const assert = require('node:assert/strict');
const net = require('node:net');
const { Toxiproxy } = require('toxiproxy-node-client');

const [api, upstream] = process.argv.slice(2);

// Sends PING to host:port and resolves with what came back and how long it took
// (until "+PONG\r\n" or the close).
function ping(address) {
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    return new Promise((resolve) => {
        const started = process.hrtime.bigint();
        const socket = net.connect({ host, port });
        let reply = '';
        let error = '';
        const done = () => {
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            socket.destroy();
            resolve({ reply, ms, error });
        };
        socket.on('connect', () => socket.write('PING\r\n'));
        socket.on('data', (data) => {
            reply += data.toString();
            if (reply === '+PONG\r\n') done();
        });
        socket.on('error', (e) => { error = e.code || e.message; done(); });
        socket.on('close', done);
        socket.setTimeout(10000, () => { error = 'timeout'; done(); });
    });
}

function step(name, values) {
    console.log(`step ${name} ` + Object.entries(values).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' '));
}

async function main() {
    const toxiproxy = new Toxiproxy(api);
    const version = await toxiproxy.getVersion();
    step('version', { version });

    const proxy = await toxiproxy.createProxy({ name: 'redis', listen: '127.0.0.1:0', upstream });
    assert.equal(proxy.name, 'redis');
    assert.equal(proxy.upstream, upstream);
    assert.equal(proxy.enabled, true);
    assert.match(proxy.listen, /^127\.0\.0\.1:[1-9][0-9]*$/);
    const clean = await ping(proxy.listen);
    assert.equal(clean.reply, '+PONG\r\n');
    step('create', { listen: proxy.listen, ms: clean.ms });

    const slow = await proxy.addToxic({
        name: 'slow', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 400, jitter: 0 },
    });
    assert.equal(slow.name, 'slow');
    assert.deepEqual(slow.attributes, { latency: 400, jitter: 0 });
    const delayed = await ping(proxy.listen);
    assert.equal(delayed.reply, '+PONG\r\n');
    assert.ok(delayed.ms >= 395, `latency 400 ms took ${delayed.ms} ms`);
    step('latency', { ms: delayed.ms });

    const changed = await slow.update({ attributes: { latency: 100 }, toxicity: 1 });
    assert.equal(changed.attributes.latency, 100);
    const fetched = await proxy.getToxic('slow');
    assert.equal(fetched.attributes.latency, 100);
    const lighter = await ping(proxy.listen);
    assert.ok(lighter.ms >= 95, `latency 100 ms took ${lighter.ms} ms`);
    step('update', { ms: lighter.ms });

    await slow.remove();
    const limited = await proxy.addToxic({ type: 'limit_data', attributes: { bytes: 2 } });
    assert.equal(limited.name, 'limit_data_downstream');
    assert.equal(limited.stream, 'downstream');
    const cut = await ping(proxy.listen);
    assert.equal(cut.reply, '+P');
    step('limit_data', { reply: cut.reply });

    // A name taken is refused (toxiproxy answers 409), and the client throws.
    await assert.rejects(proxy.addToxic({ type: 'limit_data', attributes: { bytes: 2 } }), /409/);
    await assert.rejects(toxiproxy.createProxy({ name: 'redis', listen: '127.0.0.1:0', upstream }), /409/);
    await assert.rejects(toxiproxy.get('nothing'), /404/);
    await assert.rejects(proxy.addToxic({ type: 'latenzy' }), /400/);
    step('errors', { ok: true });

    const disabled = await proxy.update({ enabled: false, listen: proxy.listen, upstream });
    assert.equal(disabled.enabled, false);
    const refused = await ping(proxy.listen);
    assert.equal(refused.error, 'ECONNREFUSED');
    step('disabled', { error: refused.error });

    await toxiproxy.reset();
    const all = await toxiproxy.getAll();
    assert.deepEqual(Object.keys(all), ['redis']);
    assert.equal(all.redis.enabled, true);
    const afterReset = await ping(proxy.listen);
    assert.equal(afterReset.reply, '+PONG\r\n');
    const raw = await (await fetch(`${api}/proxies/redis/toxics`)).json();
    assert.deepEqual(raw, []);
    step('reset', { ms: afterReset.ms });

    const populated = await toxiproxy.populate([
        { name: 'redis', listen: proxy.listen, upstream },
        { name: 'second', listen: '127.0.0.1:0', upstream },
    ]);
    assert.deepEqual(Object.keys(populated).sort(), ['redis', 'second']);
    assert.equal(populated.redis.listen, proxy.listen);
    const second = await ping(populated.second.listen);
    assert.equal(second.reply, '+PONG\r\n');
    step('populate', { second: populated.second.listen });

    await populated.second.remove();
    await proxy.remove();
    assert.deepEqual(await toxiproxy.getAll(), {});
    step('remove', { ok: true });
}

main().then(() => console.log('done'), (error) => {
    console.error(`FAILED: ${error.stack || error}`);
    process.exit(1);
});
