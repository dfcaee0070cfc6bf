import { describe, expect, it } from "vitest";

import { passphraseProblem, restoreCommand } from "./backupPassphrase";

describe("a backup's key passphrase", () => {
  it("must be long enough and typed the same twice", () => {
    expect(passphraseProblem("short", "short")).toBe("short");
    expect(passphraseProblem("correct horse", "correct hors")).toBe("differ");
    expect(passphraseProblem("correct horse", "correct horse")).toBeNull();
    // Characters, not bytes: eight accented letters are enough.
    expect(passphraseProblem("ñáéíóúüç", "ñáéíóúüç")).toBeNull();
  });

  it("restores with the key only when one is kept, the path quoted for a shell", () => {
    expect(restoreCommand("/home/a/backups/colmena-1.db", true)).toBe("colmena restore /home/a/backups/colmena-1.db --key-passphrase-stdin");
    expect(restoreCommand("/home/a b/it's.db", false)).toBe(`colmena restore '/home/a b/it'\\''s.db'`);
  });
});
