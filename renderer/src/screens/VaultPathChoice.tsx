// The propose form of a vault (issue 32): which path the payment is signed on. The main path is open
// at once; a recovery path opens for each coin at its own block (the coin's block + the path's
// delay), so it is offered only when it is open for every coin the payment may spend (those picked
// under coin control, else all the vault's coins, as the desk may pick any). A path not open yet is
// shown with each coin's block and an estimated date, disabled, saying why.
import type { VaultView } from '../../../main/bridge/contract.ts';
import { Amount } from '../ui.tsx';
import { coinOpening, outpointShort, pathOpenings } from '../vault-paths.ts';
import { outpointText } from './CoinControl.tsx';

export function VaultPathChoice({ vault, picked, chosen, onChoose }: { vault: VaultView; picked: readonly string[] | null; chosen: number; onChoose: (blocks: number) => void }) {
  const openings = pathOpenings(vault, picked);
  return (
    <fieldset className="vault-path-choice" data-testid="vault-path-choice">
      <legend>Spending path</legend>
      <p className="muted small">Who signs this payment. A recovery path opens for each coin a set number of blocks after the block that confirmed it.</p>
      <ul className="plain">
        {openings.map(({ path, open, why, coins }) => (
          <li key={path.blocks} className={open ? 'path-open' : 'path-closed'} data-testid={`vault-path-${path.blocks}`}>
            <label className="inline">
              <input type="radio" name="vault-path" value={path.blocks} checked={chosen === path.blocks} disabled={!open} onChange={() => onChoose(path.blocks)} data-testid={`vault-path-pick-${path.blocks}`} />{' '}
              <span className={open ? undefined : 'muted'}>
                {path.signing.words[0]!.toUpperCase() + path.signing.words.slice(1)}
                {path.blocks === 0 ? ', open now' : ''}
              </span>
            </label>
            {why && (
              <p className="field-error small" data-testid={`vault-path-why-${path.blocks}`}>
                {why}
              </p>
            )}
            {coins.length > 0 && (
              <ul className="small muted path-coins" data-testid={`vault-path-coins-${path.blocks}`}>
                {coins.map((c) => (
                  <li key={outpointText(c)}>
                    <span className="mono">{outpointShort(c)}</span> <Amount units={c.amount} unit={vault.unit} />: {coinOpening(c)}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {vault.coins_unread && <p className="muted small">{vault.coins_unread}</p>}
    </fieldset>
  );
}
