// The passphrase a person chooses to seal the master key with a backup:
// typed twice, at least as long as the backend asks (MIN_PASSPHRASE_CHARS in
// crates/colmena-core/src/secrets/key_bundle.rs), so a typo never seals a
// key nobody can open. And the restore command a copy is brought back with:
// the store is open in the window, so a restore runs with Colmena closed.

export const MIN_PASSPHRASE_CHARS = 8;

export type PassphraseProblem = "short" | "differ" | null;

/** What is wrong with a new passphrase and its repetition, if anything. */
export function passphraseProblem(passphrase: string, again: string): PassphraseProblem {
  if ([...passphrase].length < MIN_PASSPHRASE_CHARS) return "short";
  if (passphrase !== again) return "differ";
  return null;
}

/** The command that restores `path`, with its key when one is kept beside it. */
export function restoreCommand(path: string, keyIncluded: boolean): string {
  const quoted = /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
  return keyIncluded ? `colmena restore ${quoted} --key-passphrase-stdin` : `colmena restore ${quoted}`;
}
