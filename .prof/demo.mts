import { generateDemoBusinesses } from '/work/main/src/demo/demo-dataset.js';
for (const b of generateDemoBusinesses()) console.log(b.location.city.padEnd(14), b.name.padEnd(24), b.categories.map((c) => c.alias).join(',').padEnd(28), b.rating, b.review_count, b.price, b.transactions.join('/'), b.alias);
