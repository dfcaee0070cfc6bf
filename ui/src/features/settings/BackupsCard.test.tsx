// Settings → Data → Backups against a scripted backend: a copy made with the
// key sealed sends the passphrase once both fields agree, a copy without the
// key says so, each copy says whether it carries the key and offers its
// restore command, and automatic copies can be given the key.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { BackupsOverview } from "../../api";
import { BackupsCard } from "./BackupsCard";

const overview = (automaticKey: boolean): BackupsOverview => ({
  folder: "/data/backups",
  automaticKey,
  lastRestore: backend.lastRestore,
  backups: [
    { path: "/data/backups/colmena-2.db", name: "colmena-2.db", bytes: 40960, modified: "2026-12-06T10:00:00Z", keyIncluded: true },
    { path: "/data/backups/pre-upgrade-1.db", name: "pre-upgrade-1.db", bytes: 20480, modified: "2026-12-01T10:00:00Z", keyIncluded: false },
  ],
});

const backend = {
  made: [] as (string | null)[],
  kept: [] as (string | null)[],
  automaticKey: false,
  restored: [] as [string, string | null][],
  lastRestore: null as BackupsOverview["lastRestore"],
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {
      listBackups: async () => overview(backend.automaticKey),
      makeBackup: async (keyPassphrase: string | null) => {
        backend.made.push(keyPassphrase);
        const path = "/data/backups/colmena-3.db";
        return { path, schemaVersion: 20, bytes: 1, key: keyPassphrase ? { kind: "sealed", bundle: `${path}.colmena-key` } : { kind: "not_included" } };
      },
      restoreBackup: async (path: string, keyPassphrase: string | null) => {
        if (keyPassphrase === "wrong passphrase") throw new errors.ApiError("validation", "the passphrase does not open the key kept with this copy");
        backend.restored.push([path, keyPassphrase]);
        return null;
      },
      dismissRestoreOutcome: async () => {
        backend.lastRestore = null;
        return overview(backend.automaticKey);
      },
      keepBackupKey: async (keyPassphrase: string | null) => {
        backend.kept.push(keyPassphrase);
        backend.automaticKey = keyPassphrase !== null;
        return overview(backend.automaticKey);
      },
    },
  };
});

function renderCard() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <BackupsCard />
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  backend.made = [];
  backend.kept = [];
  backend.automaticKey = false;
  backend.restored = [];
  backend.lastRestore = null;
});

describe("Settings → Data → Backups", () => {
  it("says which copies carry the key and how each is restored", async () => {
    renderCard();
    const sealed = await screen.findByTestId("backup-colmena-2.db");
    expect(within(sealed).getByTestId("backup-key")).toHaveTextContent("Key included");
    expect(within(sealed).getByTestId("backup-restore-colmena-2.db")).toHaveAttribute("data-id", "colmena restore /data/backups/colmena-2.db --key-passphrase-stdin");
    const bare = screen.getByTestId("backup-pre-upgrade-1.db");
    expect(within(bare).getByTestId("backup-key")).toHaveTextContent("No key");
    expect(screen.getByTestId("backup-automatic")).toHaveTextContent("Automatic copies do not carry the master key.");
  });

  it("seals the key only once the passphrase is typed the same twice", async () => {
    renderCard();
    await screen.findByTestId("backup-list");
    fireEvent.click(screen.getByTestId("backup-with-key"));
    expect(screen.getByTestId("backup-now")).toBeDisabled();
    fireEvent.change(screen.getByLabelText("Passphrase"), { target: { value: "correct horse" } });
    fireEvent.change(screen.getByLabelText("The same passphrase again"), { target: { value: "correct hors" } });
    expect(screen.getByTestId("error-backup-again")).toHaveTextContent("The two passphrases differ.");
    expect(screen.getByTestId("backup-now")).toBeDisabled();
    fireEvent.change(screen.getByLabelText("The same passphrase again"), { target: { value: "correct horse" } });
    fireEvent.click(screen.getByTestId("backup-now"));
    expect(await screen.findByTestId("backup-made")).toHaveTextContent("The master key is sealed with your passphrase beside it");
    expect(backend.made).toEqual(["correct horse"]);
  });

  it("says when a copy is made without the key", async () => {
    renderCard();
    await screen.findByTestId("backup-list");
    fireEvent.click(screen.getByTestId("backup-now"));
    expect(await screen.findByTestId("backup-made")).toHaveTextContent("without the master key");
    expect(backend.made).toEqual([null]);
  });

  it("gives automatic copies the key, and stops", async () => {
    renderCard();
    fireEvent.click(await screen.findByTestId("backup-automatic-set"));
    fireEvent.change(screen.getByLabelText("Passphrase"), { target: { value: "a long passphrase" } });
    fireEvent.change(screen.getByLabelText("The same passphrase again"), { target: { value: "a long passphrase" } });
    fireEvent.click(screen.getByTestId("backup-automatic-save"));
    await waitFor(() => expect(screen.getByTestId("backup-automatic")).toHaveTextContent("Automatic copies carry the master key"));
    fireEvent.click(screen.getByTestId("backup-automatic-stop"));
    await waitFor(() => expect(backend.kept).toEqual(["a long passphrase", null]));
  });

  it("restores a copy with the passphrase of its key, and says so when the passphrase is wrong", async () => {
    renderCard();
    fireEvent.click(await screen.findByTestId("backup-restore-open-colmena-2.db"));
    const panel = screen.getByTestId("restore-colmena-2.db");
    fireEvent.change(within(panel).getByLabelText("Passphrase of the key kept with this copy"), { target: { value: "wrong passphrase" } });
    fireEvent.click(within(panel).getByTestId("restore-colmena-2.db-go"));
    expect(await within(panel).findByRole("alert")).toHaveTextContent("does not open the key");
    expect(backend.restored).toEqual([]);
    fireEvent.change(within(panel).getByLabelText("Passphrase of the key kept with this copy"), { target: { value: "correct horse" } });
    fireEvent.click(within(panel).getByTestId("restore-colmena-2.db-go"));
    expect(await screen.findByTestId("restore-closing")).toHaveTextContent("Colmena is closing to restore it");
    expect(backend.restored).toEqual([["/data/backups/colmena-2.db", "correct horse"]]);
  });

  it("restores a copy without a key without asking for a passphrase", async () => {
    renderCard();
    fireEvent.click(await screen.findByTestId("backup-restore-open-pre-upgrade-1.db"));
    const panel = screen.getByTestId("restore-pre-upgrade-1.db");
    expect(panel).toHaveTextContent("This copy carries no master key");
    fireEvent.click(within(panel).getByTestId("restore-pre-upgrade-1.db-go"));
    await waitFor(() => expect(backend.restored).toEqual([["/data/backups/pre-upgrade-1.db", null]]));
  });

  it("shows how the last restore ended until it is dismissed", async () => {
    backend.lastRestore = {
      file: "/data/backups/colmena-2.db",
      at: "2026-12-06T11:00:00Z",
      report: { schemaVersion: 20, previous: "/data/backups/pre-restore-1.db", key: { kind: "restored", location: "the key file" }, replacedKey: null },
      error: null,
    };
    renderCard();
    const outcome = await screen.findByTestId("restore-outcome");
    expect(outcome).toHaveTextContent("Restored /data/backups/colmena-2.db.");
    expect(outcome).toHaveTextContent("The master key kept with it was restored too.");
    expect(outcome).toHaveTextContent("/data/backups/pre-restore-1.db");
    fireEvent.click(screen.getByTestId("restore-outcome-dismiss"));
    await waitFor(() => expect(screen.queryByTestId("restore-outcome")).toBeNull());
  });
});
