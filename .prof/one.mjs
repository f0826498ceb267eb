// prints the size of a search answer against a running server (URL KEY PATH)
const [url, key, path] = process.argv.slice(2);
const r = await fetch(url + path, { headers: { authorization: `Bearer ${key}` } });
const t = await r.text();
console.log(r.status, t.length, t.slice(0, 1500));
