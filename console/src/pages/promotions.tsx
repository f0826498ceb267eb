import { useState } from 'preact/hooks';
import type { paths } from '../../../packages/sdk/src/schema';
import { must, pbs, type Answer } from '../client';
import { useQuery } from '../hooks';
import { Action, Badge, Card, Problem, Table, IfMay } from '../ui';

type Promotion = Answer<'/admin/v1/advertising/promotions', 'get'>['promotions'][number];
type PromotionBody = NonNullable<paths['/admin/v1/advertising/promotions/{code}']['put']['requestBody']>['content']['application/json'];
type ProgramType = NonNullable<PromotionBody['program_types']>[number];

/** Every program type a promotion may apply to (a Record, so the compiler says when one is missing). */
const PROGRAM_TYPES: Record<ProgramType, true> = {
  BP: true,
  EP: true,
  CPC: true,
  RCA: true,
  CTA: true,
  SLIDESHOW: true,
  BH: true,
  VL: true,
  LOGO: true,
  PORTFOLIO: true,
};
const ALL_TYPES = Object.keys(PROGRAM_TYPES).filter((t): t is ProgramType => t in PROGRAM_TYPES);

const dollars = (cents: number | null) => (cents === null ? '' : (cents / 100).toFixed(2));
const cents = (text: string) => (text.trim() === '' ? null : Math.round(Number(text) * 100));

/**
 * Promotion codes partners' programs may name (docs/contract/advertising.md §8.9): created,
 * changed, turned off and on again. Budgets are typed in dollars and kept in cents.
 */
export function Promotions() {
  const list = useQuery('promotions', () => must(pbs.GET('/admin/v1/advertising/promotions')));
  const [editing, setEditing] = useState<Promotion | 'new' | undefined>(undefined);
  const save = (code: string, body: PromotionBody) =>
    must(pbs.PUT('/admin/v1/advertising/promotions/{code}', { params: { path: { code } }, body }));
  const bodyOf = (p: Promotion, change: Partial<PromotionBody> = {}): PromotionBody => ({
    program_types: p.program_types.filter((t): t is ProgramType => t in PROGRAM_TYPES),
    min_budget: p.min_budget,
    max_budget: p.max_budget,
    months: p.months,
    active: p.active,
    ...change,
  });
  return (
    <Card title="Promotion codes" wide>
      <Problem error={list.error} />
      {editing === undefined && (
        <IfMay need="partner_manager">
          <button data-testid="new-promotion" onClick={() => setEditing('new')}>
            New promotion
          </button>
        </IfMay>
      )}
      {editing !== undefined && (
        <PromotionForm
          promotion={editing === 'new' ? undefined : editing}
          save={save}
          saved={() => (setEditing(undefined), list.reload())}
          cancel={() => setEditing(undefined)}
        />
      )}
      <Table
        testId="promotions"
        rows={list.data?.promotions}
        empty="No promotion code yet."
        columns={[
          { title: 'Code', cell: (p) => <code>{p.code}</code> },
          { title: 'Program types', cell: (p) => p.program_types.join(', ') },
          {
            title: 'Budget',
            cell: (p) =>
              p.min_budget === null && p.max_budget === null
                ? 'any'
                : `${dollars(p.min_budget) || '0'} – ${dollars(p.max_budget) || 'any'}`,
          },
          { title: 'Months', numeric: true, cell: (p) => p.months },
          { title: 'State', cell: (p) => <Badge value={p.active ? 'active' : 'inactive'} /> },
          {
            title: '',
            cell: (p) => (
              <span class="actions">
                <IfMay need="partner_manager">
                  <button data-testid={`edit-promotion-${p.code}`} onClick={() => setEditing(p)}>
                    Edit
                  </button>
                </IfMay>
                <Action
                  need="partner_manager"
                  label={p.active ? 'Turn off' : 'Turn on'}
                  testId={`toggle-promotion-${p.code}`}
                  run={() => save(p.code, bodyOf(p, { active: !p.active }))}
                  done={list.reload}
                />
              </span>
            ),
          },
        ]}
      />
    </Card>
  );
}

function PromotionForm(props: {
  promotion?: Promotion;
  save: (code: string, body: PromotionBody) => Promise<unknown>;
  saved: () => void;
  cancel: () => void;
}) {
  const p = props.promotion;
  const [code, setCode] = useState(p?.code ?? '');
  const [types, setTypes] = useState<ProgramType[]>(p ? p.program_types.filter((t): t is ProgramType => t in PROGRAM_TYPES) : ['CPC']);
  const [min, setMin] = useState(p ? dollars(p.min_budget) : '');
  const [max, setMax] = useState(p ? dollars(p.max_budget) : '');
  const [months, setMonths] = useState(String(p?.months ?? 6));
  const [active, setActive] = useState(p?.active ?? true);
  const value = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return (
    <form class="form promotion-form" data-testid="promotion-form" onSubmit={(e) => e.preventDefault()}>
      <label>
        code
        <input name="code" value={code} disabled={p !== undefined} required maxLength={64} onInput={value(setCode)} />
      </label>
      <label>
        least budget ($)
        <input name="min_budget" type="number" min={0} step="0.01" placeholder="none" value={min} onInput={value(setMin)} />
      </label>
      <label>
        most budget ($)
        <input name="max_budget" type="number" min={0} step="0.01" placeholder="none" value={max} onInput={value(setMax)} />
      </label>
      <label>
        months
        <input name="months" type="number" min={1} max={24} value={months} onInput={value(setMonths)} />
      </label>
      <fieldset>
        <legend>Program types</legend>
        {ALL_TYPES.map((t) => (
          <label class="check">
            <input
              type="checkbox"
              name={`type-${t}`}
              checked={types.includes(t)}
              onChange={(e) => setTypes((e.target as HTMLInputElement).checked ? [...types, t] : types.filter((x) => x !== t))}
            />{' '}
            {t}
          </label>
        ))}
      </fieldset>
      <label class="check">
        <input type="checkbox" name="active" checked={active} onChange={(e) => setActive((e.target as HTMLInputElement).checked)} /> active
      </label>
      <Action
        need="partner_manager"
        label="Save"
        kind="primary"
        testId="save-promotion"
        run={() =>
          props.save(code.trim(), { program_types: types, min_budget: cents(min), max_budget: cents(max), months: Number(months), active })
        }
        done={props.saved}
      />
      <button onClick={props.cancel}>Cancel</button>
    </form>
  );
}
