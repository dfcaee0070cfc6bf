// Settings → Data → Backups (issue 33): copies of the store, made now or
// automatically (before migrations, upgrades and updates), and whether each
// carries the master key. Without the key a copy gives back every row but no
// secret once this computer's key is gone, so the card offers to seal the key
// with a passphrase the person chooses — for this copy, or once for every
// automatic one — and says plainly when a copy has no key. Each copy can be
// restored from here (Colmena closes and opens again, `RestoreBackup.tsx`)
// and offers its `colmena restore` command for a restore by hand.

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Archive, KeyRound } from "lucide-react";

import { api, type ApiError, type BackupReport, type BackupsOverview } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { CopyId } from "../../components/CopyId";
import { Field } from "../../components/Field";
import { passphraseProblem, restoreCommand, MIN_PASSPHRASE_CHARS } from "./backupPassphrase";
import { RestoreBackup, RestoreOutcomeBanner } from "./RestoreBackup";

const BACKUPS = ["backups"] as const;

/** Two password fields for a new passphrase; `onChange` gets it once both agree and it is long enough. */
function NewPassphrase({ id, onChange }: { id: string; onChange(passphrase: string | null): void }) {
  const { t } = useTranslation();
  const [first, setFirst] = useState("");
  const [again, setAgain] = useState("");
  const problem = first || again ? passphraseProblem(first, again) : null;
  const update = (nextFirst: string, nextAgain: string) => {
    setFirst(nextFirst);
    setAgain(nextAgain);
    onChange(passphraseProblem(nextFirst, nextAgain) === null ? nextFirst : null);
  };
  return (
    <>
      <Field id={`${id}-passphrase`} label={t("data.backups.passphrase")} hint={t("data.backups.passphraseHint", { count: MIN_PASSPHRASE_CHARS })}>
        <input id={`${id}-passphrase`} className="input" type="password" autoComplete="new-password" value={first} onChange={(e) => update(e.target.value, again)} />
      </Field>
      <Field id={`${id}-again`} label={t("data.backups.passphraseAgain")} error={problem === "differ" && again ? t("data.backups.differ") : null}>
        <input id={`${id}-again`} className="input" type="password" autoComplete="new-password" value={again} onChange={(e) => update(first, e.target.value)} />
      </Field>
    </>
  );
}

function MadeBanner({ report }: { report: BackupReport }) {
  const { t } = useTranslation();
  const key = report.key;
  if (key.kind === "sealed") return <Banner tone="success" testId="backup-made">{t("data.backups.madeSealed", { path: report.path, bundle: key.bundle })}</Banner>;
  if (key.kind === "no_key") return <Banner tone="info" testId="backup-made">{t("data.backups.madeNoKey", { path: report.path })}</Banner>;
  return <Banner tone="warning" testId="backup-made">{t("data.backups.madeWithoutKey", { path: report.path })}</Banner>;
}

export function BackupsCard() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const overview = useQuery<BackupsOverview, ApiError>({ queryKey: BACKUPS, queryFn: api.listBackups });
  const [withKey, setWithKey] = useState(false);
  const [passphrase, setPassphrase] = useState<string | null>(null);
  const [automatic, setAutomatic] = useState(false);
  const [automaticPassphrase, setAutomaticPassphrase] = useState<string | null>(null);
  const [restoring, setRestoring] = useState<string | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: BACKUPS });

  const make = useMutation<BackupReport, ApiError>({
    mutationFn: () => api.makeBackup(withKey ? passphrase : null),
    onSuccess: () => {
      setWithKey(false);
      setPassphrase(null);
    },
    onSettled: refresh,
  });
  const keep = useMutation<BackupsOverview, ApiError, string | null>({
    mutationFn: (phrase) => api.keepBackupKey(phrase),
    onSuccess: (next) => {
      client.setQueryData(BACKUPS, next);
      setAutomatic(false);
      setAutomaticPassphrase(null);
    },
  });
  const error = make.error ?? keep.error ?? overview.error;
  const size = (bytes: number) => new Intl.NumberFormat(i18n.language, { style: "unit", unit: "kilobyte", maximumFractionDigits: 0 }).format(bytes / 1024);
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(i18n.language) : "—");

  return (
    <div className="card settings-card" data-testid="backups-card">
      <div className="card-title">
        <Archive size={18} />
        <h3>{t("data.backups.title")}</h3>
      </div>
      <p className="muted">{t("data.backups.body")}</p>
      {overview.data?.lastRestore && <RestoreOutcomeBanner outcome={overview.data.lastRestore} />}
      {error && <Banner tone="danger">{errorText(t, error)}</Banner>}
      {make.data && <MadeBanner report={make.data} />}
      <label className="check">
        <input type="checkbox" checked={withKey} onChange={(e) => setWithKey(e.target.checked)} data-testid="backup-with-key" />
        <span>{t("data.backups.withKey")}</span>
      </label>
      {withKey && <NewPassphrase id="backup" onChange={setPassphrase} />}
      <div className="backup-actions">
        <Button variant="primary" busy={make.isPending} disabled={withKey && passphrase === null} onClick={() => make.mutate()} data-testid="backup-now">
          {t("data.backups.now")}
        </Button>
      </div>

      {overview.data && (
        <>
          <p className="small" data-testid="backup-automatic">
            <KeyRound size={14} aria-hidden="true" /> {overview.data.automaticKey ? t("data.backups.automaticOn") : t("data.backups.automaticOff")}
          </p>
          {automatic ? (
            <>
              <NewPassphrase id="automatic" onChange={setAutomaticPassphrase} />
              <div className="backup-actions">
                <Button variant="ghost" onClick={() => setAutomatic(false)}>
                  {t("common.cancel")}
                </Button>
                <Button variant="primary" busy={keep.isPending} disabled={automaticPassphrase === null} onClick={() => keep.mutate(automaticPassphrase)} data-testid="backup-automatic-save">
                  {t("data.backups.automaticSave")}
                </Button>
              </div>
            </>
          ) : (
            <div className="backup-actions">
              <Button size="sm" onClick={() => setAutomatic(true)} data-testid="backup-automatic-set">
                {overview.data.automaticKey ? t("data.backups.automaticChange") : t("data.backups.automaticSet")}
              </Button>
              {overview.data.automaticKey && (
                <Button size="sm" variant="ghost" busy={keep.isPending} onClick={() => keep.mutate(null)} data-testid="backup-automatic-stop">
                  {t("data.backups.automaticStop")}
                </Button>
              )}
            </div>
          )}
          <p className="field-hint">{t("data.backups.restoreHint")}</p>
          {overview.data.backups.length === 0 ? (
            <p className="muted small">{t("data.backups.none", { folder: overview.data.folder })}</p>
          ) : (
            <ul className="backup-list" data-testid="backup-list">
              {overview.data.backups.map((b) => (
                <li key={b.path} className="backup-item" data-testid={`backup-${b.name}`}>
                  <span className="mono">{b.name}</span>
                  <span className="muted small">
                    {when(b.modified)} · {size(b.bytes)}
                  </span>
                  <span className={b.keyIncluded ? "badge badge-success" : "badge"} data-testid="backup-key">
                    {b.keyIncluded ? t("data.backups.keyIncluded") : t("data.backups.keyMissing")}
                  </span>
                  <CopyId id={restoreCommand(b.path, b.keyIncluded)} label={t("data.backups.copyRestore")} testId={`backup-restore-${b.name}`} />
                  {restoring !== b.path && (
                    <Button size="sm" onClick={() => setRestoring(b.path)} data-testid={`backup-restore-open-${b.name}`}>
                      {t("data.backups.restore")}
                    </Button>
                  )}
                  {restoring === b.path && <RestoreBackup backup={b} onCancel={() => setRestoring(null)} />}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}
