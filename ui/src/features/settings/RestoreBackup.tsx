// Restoring a copy from Settings → Data → Backups (issue 33). The window
// holds the store open and cannot replace it, so the backend checks the copy
// — and the passphrase of the key kept with it — while it is still open (a
// wrong passphrase closes nothing), then closes Colmena; `colmena restore
// --after-close` puts store and key back and opens Colmena again. This card
// then shows how it ended, until the person dismisses it.

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { api, type ApiError, type BackupsOverview, type RestoreOutcome } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";

type Backup = BackupsOverview["backups"][number];

/** The panel under a copy: what a restore does, the key's passphrase, and the button. */
export function RestoreBackup({ backup, onCancel }: { backup: Backup; onCancel(): void }) {
  const { t } = useTranslation();
  const [passphrase, setPassphrase] = useState("");
  const restore = useMutation<null, ApiError>({
    mutationFn: () => api.restoreBackup(backup.path, backup.keyIncluded && passphrase ? passphrase : null),
  });
  const id = `restore-${backup.name}`;
  return (
    <div className="restore-panel" data-testid={id}>
      <p className="small">{t("data.backups.restoreBody")}</p>
      {backup.keyIncluded ? (
        <Field id={`${id}-passphrase`} label={t("data.backups.restorePassphrase")} hint={t("data.backups.restorePassphraseHint")}>
          <input id={`${id}-passphrase`} className="input" type="password" autoComplete="current-password" value={passphrase}
            onChange={(e) => {
              setPassphrase(e.target.value);
              if (restore.isError) restore.reset();
            }}
          />
        </Field>
      ) : (
        <p className="small muted">{t("data.backups.restoreNoKey")}</p>
      )}
      {restore.error && <Banner tone="danger">{errorText(t, restore.error)}</Banner>}
      {restore.isSuccess && <Banner tone="info" testId="restore-closing">{t("data.backups.restoreClosing")}</Banner>}
      <div className="backup-actions">
        <Button variant="ghost" onClick={onCancel} disabled={restore.isPending || restore.isSuccess}>
          {t("common.cancel")}
        </Button>
        <Button variant="danger" busy={restore.isPending} disabled={restore.isSuccess} onClick={() => restore.mutate()} data-testid={`${id}-go`}>
          {t("data.backups.restoreGo")}
        </Button>
      </div>
    </div>
  );
}

/** What became of the key, in a sentence. */
function keyLine(t: ReturnType<typeof useTranslation>["t"], outcome: RestoreOutcome): string | null {
  const key = outcome.report?.key;
  if (!key) return null;
  switch (key.kind) {
    case "restored":
      return t("data.backups.restoredKey");
    case "already_there":
      return t("data.backups.restoredKeyThere");
    case "not_opened":
      return t(key.currentKeyOpens ? "data.backups.restoredKeyNotOpenedOpens" : "data.backups.restoredKeyNotOpenedLocked");
    case "not_included":
      return t(key.currentKeyOpens ? "data.backups.restoredNoKeyOpens" : "data.backups.restoredNoKeyLocked");
    case "no_key":
      return null;
  }
}

/** How the last restore ended, with a way to dismiss it. */
export function RestoreOutcomeBanner({ outcome }: { outcome: RestoreOutcome }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const dismiss = useMutation<BackupsOverview, ApiError>({
    mutationFn: api.dismissRestoreOutcome,
    onSuccess: (next) => client.setQueryData(["backups"], next),
  });
  const failed = outcome.error !== null;
  const key = keyLine(t, outcome);
  return (
    <Banner tone={failed ? "danger" : "success"} testId="restore-outcome">
      {failed ? (
        <p>{t("data.backups.restoreFailed", { file: outcome.file, error: outcome.error })}</p>
      ) : (
        <>
          <p>{t("data.backups.restored", { file: outcome.file })}</p>
          {key && <p>{key}</p>}
          {outcome.report?.previous && <p className="small">{t("data.backups.restoredPrevious", { path: outcome.report.previous })}</p>}
          {outcome.report?.replacedKey && <p className="small">{t("data.backups.restoredReplacedKey", { path: outcome.report.replacedKey })}</p>}
        </>
      )}
      <Button size="sm" variant="ghost" busy={dismiss.isPending} onClick={() => dismiss.mutate()} data-testid="restore-outcome-dismiss">
        {t("data.backups.dismiss")}
      </Button>
    </Banner>
  );
}
