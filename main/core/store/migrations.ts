// The coordinator's schema, as ordered migrations applied in code at open (user_version tracks them).
// Amounts are decimal TEXT: exact bigints whatever the coin; bytes are BLOBs, hex only at the edges.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE wallets (
    id TEXT PRIMARY KEY,
    coin TEXT NOT NULL,
    network TEXT NOT NULL,
    name TEXT NOT NULL,
    m INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE cosigners (
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    xpub TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    derivation_path TEXT NOT NULL,
    PRIMARY KEY (wallet_id, position)
  );
  CREATE TABLE addresses (
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    change INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    address TEXT NOT NULL,
    redeem_script BLOB NOT NULL,
    PRIMARY KEY (wallet_id, change, idx)
  );
  CREATE TABLE payments (
    id TEXT PRIMARY KEY,
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    to_address TEXT NOT NULL,
    amount TEXT NOT NULL,
    miners_fee TEXT NOT NULL,
    operator_fee TEXT,
    operator_address TEXT,
    unsigned_tx BLOB NOT NULL,
    total_input_value TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('awaiting_signatures','ready','broadcast','confirmed','cancelled','failed')),
    reason TEXT,
    last_error TEXT,
    txid TEXT,
    confirmations INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE payment_inputs (
    payment_id TEXT NOT NULL REFERENCES payments(id),
    input_index INTEGER NOT NULL,
    amount TEXT NOT NULL,
    change INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    redeem_script BLOB NOT NULL,
    PRIMARY KEY (payment_id, input_index)
  );
  CREATE TABLE payment_hashes (
    payment_id TEXT NOT NULL REFERENCES payments(id),
    input_index INTEGER NOT NULL,
    public_key BLOB NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (payment_id, input_index, public_key)
  );
  CREATE TABLE signatures (
    payment_id TEXT NOT NULL REFERENCES payments(id),
    input_index INTEGER NOT NULL,
    public_key BLOB NOT NULL,
    signature BLOB NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (payment_id, input_index, public_key)
  );
  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL,
    source TEXT
  );
  -- Append-only: the log is evidence, so the database itself refuses edits and deletions.
  CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
  CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
  -- Payments are never deleted (a cancelled or failed one stays, with its reason).
  CREATE TRIGGER payments_no_delete BEFORE DELETE ON payments BEGIN SELECT RAISE(ABORT, 'payments are never deleted'); END;
  `,
  // 2: the desk's own settings (which service it talks to). Secrets never go here: the API key
  // lives in a SecretStore (main/core/secrets.ts).
  `
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 3: single-signer Ether accounts (main/core/accounts): their tokens and the sends made from them.
  // A software account's key is never here: it lives in a SecretStore, like the API key.
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('software','ledger')),
    address TEXT NOT NULL,
    chain_id TEXT NOT NULL,
    derivation_path TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (address, chain_id)
  );
  CREATE TABLE account_tokens (
    account_id TEXT NOT NULL REFERENCES accounts(id),
    contract TEXT NOT NULL,
    symbol TEXT NOT NULL,
    decimals INTEGER NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (account_id, contract)
  );
  CREATE TABLE account_sends (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    token TEXT,
    token_symbol TEXT,
    token_decimals INTEGER,
    to_address TEXT NOT NULL,
    amount TEXT NOT NULL,
    unsigned_tx BLOB NOT NULL,
    hash BLOB NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('proposed','broadcast','confirmed','cancelled','failed')),
    reason TEXT,
    txid TEXT,
    confirmations INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TRIGGER account_sends_no_delete BEFORE DELETE ON account_sends BEGIN SELECT RAISE(ABORT, 'sends are never deleted'); END;
  `,
  // 4: a wallet policy registered on a co-signer's Ledger (Bitcoin app >= 2.1; main/core/ledger):
  // exactly what was registered and the device's HMAC over it, which every later address check or
  // signature on that device needs. Registering again replaces the row.
  `
  CREATE TABLE ledger_registrations (
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    position INTEGER NOT NULL,
    policy_name TEXT NOT NULL,
    descriptor_template TEXT NOT NULL,
    key_infos TEXT NOT NULL,
    policy_id BLOB NOT NULL,
    hmac BLOB NOT NULL,
    registered_at TEXT NOT NULL,
    PRIMARY KEY (wallet_id, position)
  );
  `,
  // 5: what an audit entry is about (wallet, payment, co-signer), so the audit screen can filter on
  // them. Added columns only: entries written before stay as they were (the log is append-only).
  `
  ALTER TABLE audit_log ADD COLUMN wallet_id TEXT;
  ALTER TABLE audit_log ADD COLUMN payment_id TEXT;
  ALTER TABLE audit_log ADD COLUMN cosigner TEXT;
  CREATE INDEX audit_log_wallet ON audit_log (wallet_id);
  CREATE INDEX audit_log_payment ON audit_log (payment_id);
  `,
  // 6: a wallet's script type and key order (docs/api-decisions.md, section 8). Wallets made before
  // are what the desk always made: P2SH, keys in co-signer order. Addresses' redeem_script holds
  // the multisig script either way (the redeem script, or the witness script of the segwit types).
  `
  ALTER TABLE wallets ADD COLUMN script_type TEXT NOT NULL DEFAULT 'p2sh' CHECK (script_type IN ('p2sh','p2sh-p2wsh','p2wsh'));
  ALTER TABLE wallets ADD COLUMN sort_keys INTEGER NOT NULL DEFAULT 0 CHECK (sort_keys IN (0, 1));
  `,
  // 7: labels (main/core/labels.ts) on the wallet's addresses, transactions, outputs, co-signers'
  // xpubs and on its payments (a payment's purpose). One label per (wallet, type, ref); an empty
  // label is a removed one. BIP329 types, plus 'payment' (ref: the payment's id), which is ours.
  `
  CREATE TABLE labels (
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    type TEXT NOT NULL CHECK (type IN ('tx','addr','pubkey','input','output','xpub','payment')),
    ref TEXT NOT NULL,
    label TEXT NOT NULL,
    spendable INTEGER CHECK (spendable IN (0, 1)),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (wallet_id, type, ref)
  );
  `,
  // 8: replacements (main/core/payments/replace.ts, cpfp.ts). `kind` says what a payment is for;
  // `replaces`: the payment whose broadcast transaction this one replaces (BIP125: bump or cancel);
  // `dropped_by`: the payment whose confirmation made this one impossible (its inputs are spent):
  // such a payment is failed (it was broadcast) or cancelled (it was not), and shown as dropped.
  `
  ALTER TABLE payments ADD COLUMN kind TEXT NOT NULL DEFAULT 'payment' CHECK (kind IN ('payment','bump','cancel','cpfp'));
  ALTER TABLE payments ADD COLUMN replaces TEXT REFERENCES payments(id);
  ALTER TABLE payments ADD COLUMN dropped_by TEXT REFERENCES payments(id);
  `,
  // 9: the recipients of a batch payment (docs/api-decisions.md, section 8), in output order, each
  // with the treasurer's label. A payment made before has none here: its recipient is payments.to.
  `
  CREATE TABLE payment_recipients (
    payment_id TEXT NOT NULL REFERENCES payments(id),
    position INTEGER NOT NULL,
    address TEXT NOT NULL,
    amount TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (payment_id, position)
  );
  `,
  // 10: a wallet's birthday (main/core/wallets/birthday.ts): the first block that can concern it, so a
  // watching service scans from there. Source: 'tip' (a new wallet: the tip when it was made),
  // 'file' (its set-up file said), 'date' (the treasurer's date, mapped by the node's block times),
  // 'genesis' (from the beginning). Wallets made before have none: they are read from the beginning.
  // wallet_rescans: each "rescan from…" the treasurer asked for, in order.
  `
  ALTER TABLE wallets ADD COLUMN birthday_height INTEGER CHECK (birthday_height IS NULL OR birthday_height >= 0);
  ALTER TABLE wallets ADD COLUMN birthday_source TEXT CHECK (birthday_source IS NULL OR birthday_source IN ('tip','file','date','genesis'));
  CREATE TABLE wallet_rescans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    from_height INTEGER NOT NULL CHECK (from_height >= 0),
    requested_at TEXT NOT NULL,
    requested_by TEXT NOT NULL
  );
  `,
  // 11: miniscript vaults (issue 27; main/core/vaults/vaults.ts): `kind` says how the wallet's keys make its
  // scripts, 'multisig' (M of N, script_type and sort_keys) or 'miniscript' (vault_template, a BIP388
  // descriptor template over the co-signers in position order: @0 is position 0).
  `
  ALTER TABLE wallets ADD COLUMN kind TEXT NOT NULL DEFAULT 'multisig' CHECK (kind IN ('multisig','miniscript'));
  ALTER TABLE wallets ADD COLUMN vault_template TEXT CHECK ((kind = 'miniscript') = (vault_template IS NOT NULL));
  `,
  // 12: `dropped_by_txid`: the transaction that made a dropped payment impossible when the desk holds
  // no payment of it (a replacement of its parent sent from elsewhere); with `dropped_by` otherwise.
  `
  ALTER TABLE payments ADD COLUMN dropped_by_txid TEXT;
  `,
  // 13: `dropped_final`: a dropped payment is final once what it conflicts with is buried 6 blocks
  // deep (main/core/payments/dropped.ts); until then the follower looks at it, and shows it paid if
  // a miner takes it after all. Payments dropped before are looked at again once.
  `
  ALTER TABLE payments ADD COLUMN dropped_final INTEGER NOT NULL DEFAULT 0 CHECK (dropped_final IN (0, 1));
  `,
  // 14: the relay (issue 35; main/core/relay): the rooms this desk is in (its verified view of each,
  // as JSON), the invitations it made (the key derived from each code, to check a join's proof), joins
  // waiting for a compared code, the inbox of what arrived, approvals of payments, and each wallet's
  // approval rule. The device's own secret is not here: it lives in a SecretStore.
  `
  CREATE TABLE relay_rooms (
    room TEXT PRIMARY KEY,
    wallet_id TEXT REFERENCES wallets(id),
    wallet_name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner','cosigner','approver')),
    view TEXT NOT NULL,
    stuck TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE relay_invitations (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL REFERENCES relay_rooms(room),
    key BLOB NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('cosigner','approver')),
    name TEXT NOT NULL,
    xpub TEXT,
    created_at TEXT NOT NULL,
    used_by TEXT
  );
  CREATE TABLE relay_pending_joins (
    room TEXT NOT NULL REFERENCES relay_rooms(room),
    device TEXT NOT NULL,
    sign_key TEXT NOT NULL,
    box_key TEXT NOT NULL,
    invitation TEXT NOT NULL,
    name TEXT NOT NULL,
    comparison TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (room, device)
  );
  CREATE TABLE relay_inbox (
    room TEXT NOT NULL REFERENCES relay_rooms(room),
    seq INTEGER NOT NULL,
    sender TEXT NOT NULL,
    kind TEXT NOT NULL,
    payment_id TEXT,
    body TEXT,
    status TEXT NOT NULL CHECK (status IN ('waiting','imported','refused','noted','done')),
    message TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (room, seq)
  );
  CREATE TABLE payment_approvals (
    payment_id TEXT NOT NULL REFERENCES payments(id),
    device TEXT NOT NULL,
    approver TEXT NOT NULL,
    binding TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('approve','decline')),
    request_hash TEXT NOT NULL,
    reason TEXT,
    at TEXT NOT NULL,
    PRIMARY KEY (payment_id, device)
  );
  CREATE TABLE wallet_approval_rules (
    wallet_id TEXT PRIMARY KEY REFERENCES wallets(id),
    approvals INTEGER NOT NULL CHECK (approvals >= 0),
    limit_amount TEXT,
    period TEXT CHECK (period IS NULL OR period IN ('day','week','month'))
  );
  `,
  // 15: each co-signer's kind of air-gapped signer (issue 34; shared/api/signer-devices.ts), so the QR
  // dialogs open on the code it reads (BBQr where every known device is a Coldcard, UR otherwise) and
  // on its registration. NULL: not said. The list is SIGNER_DEVICES when this was written (store.test.ts
  // holds the two equal): a new kind of device needs a migration of its own.
  `
  ALTER TABLE cosigners ADD COLUMN device TEXT CHECK (device IS NULL OR device IN ('coldcard','keystone','passport','jade','seedsigner','krux','other'));
  `,
  // 16: the relay's sent messages and key rotation (issue 35). `relay_outbox`: what this desk sent
  // in each room (kind, payment, to whom, when) and which members have since sent a message after
  // it, which the room's hash chain proves they received (`seen_by`, JSON names). An invitation's
  // `replaces`: the device the invited member's new device takes the place of (a rotated key),
  // removed from the room when the new one is admitted.
  `
  CREATE TABLE relay_outbox (
    room TEXT NOT NULL REFERENCES relay_rooms(room),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payment_id TEXT,
    recipients TEXT NOT NULL,
    seen_by TEXT NOT NULL DEFAULT '[]',
    sent_at TEXT NOT NULL,
    PRIMARY KEY (room, seq)
  );
  ALTER TABLE relay_invitations ADD COLUMN replaces TEXT;
  `,
];
