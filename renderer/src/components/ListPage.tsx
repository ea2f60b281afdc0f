// A page listing cards (wallets, accounts): the heading with its "new" link, then the cards, or a
// first-run invitation while there are none.
import type { ReactNode } from 'react';
import { Alert, Loading, type Loaded } from '../ui.tsx';

export function ListPage<T>(props: {
  title: string;
  intro: string;
  newLabel: string;
  newHref: string;
  list: Loaded<readonly T[]>;
  what: string;
  empty: { title: string; text: string; action: string };
  card: (item: T) => ReactNode;
}) {
  const { title, intro, newLabel, newHref, list, what, empty, card } = props;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{title}</h1>
          <p className="muted">{intro}</p>
        </div>
        <a className="button primary" href={newHref}>
          {newLabel}
        </a>
      </div>
      {list.error && <Alert>{list.error}</Alert>}
      {!list.data && !list.error && <Loading what={what} />}
      {list.data?.length === 0 && (
        <div className="empty">
          <h2>{empty.title}</h2>
          <p>{empty.text}</p>
          <a className="button primary" href={newHref}>
            {empty.action}
          </a>
        </div>
      )}
      {list.data && list.data.length > 0 && <ul className="wallet-grid">{list.data.map(card)}</ul>}
    </>
  );
}
