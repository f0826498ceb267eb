import { RELEVANCE_TABLE } from '/work/main/test/support/relevance-table.ts';
for (const r of RELEVANCE_TABLE) console.log(`| \`${r.term}\` | ${r.location} | ${r.total} | ${r.top.join(', ') || '—'} | ${r.why} |`);
