import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Card, Id, Page, Pager, Problem, Table, when } from '../ui';
import type { Params } from './shared';
import { BusinessPicker } from './business-picker';

const LIMIT = 50;

/**
 * Business users (docs/owners.md): the owners and managers of businesses, and which ones each
 * manages; optionally only those managing the picked business.
 */
export function BusinessUsers(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const [offset, setOffset] = useState(0);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const users = useQuery(`business-users:${business ?? ''}:${offset}`, () =>
    must(pbs.GET('/admin/v1/business-users', { params: { query: { limit: LIMIT, offset, business_id: business } } })),
  );
  return (
    <Page title="Business users">
      <Card>
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => (setOffset(0), go('business-users', { business: id }))} label="Managing" />
          {business && <a href="#/business-users">Everyone</a>}
        </div>
        <Problem error={users.error} />
        <Table
          testId="business-users"
          rows={users.data?.business_users}
          empty="No business user."
          columns={[
            { title: 'Name', cell: (u) => u.name },
            { title: 'E-mail', cell: (u) => u.email },
            { title: 'Id', cell: (u) => <Id value={u.id} /> },
            { title: 'Manages', numeric: true, cell: (u) => u.business_ids.length },
            { title: 'Added', cell: (u) => when(u.created_at) },
            { title: 'Password', cell: (u) => (u.has_password ? 'set' : 'none (sandbox sign-in only)') },
            {
              title: '',
              cell: (u) =>
                business && u.business_ids.includes(business) ? (
                  <Action
                    need="partner_manager"
                    label="Stop managing"
                    kind="danger"
                    run={() =>
                      must(
                        pbs.DELETE('/admin/v1/business-users/{user_id}/businesses/{business_id}', {
                          params: { path: { user_id: u.id, business_id: business } },
                        }),
                      )
                    }
                    done={users.reload}
                  />
                ) : (
                  ''
                ),
            },
          ]}
        />
        <Pager offset={offset} limit={LIMIT} total={users.data?.total} onChange={setOffset} />
      </Card>
      <SetPassword onDone={users.reload} />
      <Card title={business ? 'Add a business user managing this business' : 'Add a business user'}>
        <div class="form">
          <label>
            Name
            <input name="user-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            E-mail
            <input name="user-email" type="email" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </label>
          <Action
            need="partner_manager"
            label="Add"
            kind="primary"
            testId="add-business-user"
            run={() =>
              must(pbs.POST('/admin/v1/business-users', { body: { name, email, ...(business ? { business_ids: [business] } : {}) } }))
            }
            done={() => (setName(''), setEmail(''), users.reload())}
          />
        </div>
      </Card>
    </Page>
  );
}

/**
 * The password a business user signs in with outside the sandbox, to authorize a partner's app
 * (docs/owners.md). It is sent once and kept only as a hash; the field empties after.
 */
function SetPassword(props: { onDone: () => void }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  return (
    <Card title="Set a business user’s password">
      <div class="form">
        <label>
          Business user id
          <input name="password-user" value={user} onInput={(e) => setUser((e.target as HTMLInputElement).value.trim())} />
        </label>
        <label>
          New password (12 characters or more)
          <input
            name="password"
            type="password"
            autocomplete="new-password"
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        </label>
        <Action
          need="partner_manager"
          label="Set password"
          testId="set-password"
          run={() =>
            must(pbs.PUT('/admin/v1/business-users/{user_id}/password', { params: { path: { user_id: user } }, body: { password } }))
          }
          done={() => (setPassword(''), props.onDone())}
        />
      </div>
    </Card>
  );
}
