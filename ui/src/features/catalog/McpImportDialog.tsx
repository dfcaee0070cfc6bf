// Importing servers from another client's configuration (Claude Desktop,
// Cursor, Claude Code, VS Code): pasted or picked, previewed — what will be
// added, what already exists, what cannot be imported and why, which values
// go to the vault, which ${VAR} references are set and which origin each
// one's value is sent to, the plain values and working folder a program
// gets — then imported, the chosen ones only. Nothing is written before
// Import. The text is often someone else's (a cloned project's .mcp.json):
// the preview is where a person sees what it would do with their environment.

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { FolderOpen, Lock } from "lucide-react";

import { mcpApi, type ApiError, type McpImportEntry, type McpImportOutcome, type McpImportPreview } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { useMcpRefresh } from "./McpServerRow";

const EXAMPLE = `{
  "mcpServers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }
  }
}`;

export function McpImportDialog({ onClose }: { onClose(): void }) {
  const { t } = useTranslation();
  const refresh = useMcpRefresh();
  const [text, setText] = useState("");
  const [resolve, setResolve] = useState(false);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const options = { resolveReferences: resolve };

  const preview = useMutation<McpImportPreview, ApiError>({
    mutationFn: () => mcpApi.previewImport(text, options),
    onSuccess: (p) => setChosen(new Set(p.entries.filter((e) => e.status === "new").map((e) => e.name))),
  });
  const pick = useMutation<string | null, ApiError>({
    mutationFn: () => mcpApi.pickConfigFile(t("mcp.import.pickTitle")),
    onSuccess: (picked) => {
      if (picked === null) return;
      setText(picked);
      preview.reset();
    },
  });
  const run = useMutation<McpImportOutcome, ApiError>({
    mutationFn: () => mcpApi.importServers(text, { ...options, only: [...chosen] }),
    onSettled: refresh,
  });
  // A preview is of the text and options it was made for.
  const edit = (change: () => void) => {
    change();
    preview.reset();
    run.reset();
  };
  const toggle = (name: string, on: boolean) =>
    setChosen((was) => {
      const next = new Set(was);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });

  const outcome = run.data;
  const error = preview.error ?? pick.error ?? run.error;
  return (
    <Dialog
      title={t("mcp.import.title")}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="mcp-import-dialog"
      width={820}
      footer={
        outcome ? (
          <Button variant="primary" onClick={onClose} data-testid="mcp-import-done">
            {t("common.done")}
          </Button>
        ) : (
          <>
            <Button variant="ghost" onClick={onClose}>
              {t("common.cancel")}
            </Button>
            <Button busy={preview.isPending} disabled={!text.trim()} onClick={() => preview.mutate()} data-testid="mcp-import-preview">
              {t("mcp.import.preview")}
            </Button>
            <Button variant="primary" busy={run.isPending} disabled={!preview.data || chosen.size === 0} onClick={() => run.mutate()} data-testid="mcp-import-run">
              {t("mcp.import.run", { count: chosen.size })}
            </Button>
          </>
        )
      }
    >
      {outcome ? (
        <ImportSummary outcome={outcome} />
      ) : (
        <div className="form">
          <p className="dialog-text">{t("mcp.import.intro")}</p>
          <Field id="mcp-import-text" label={t("mcp.import.text")} hint={t("mcp.import.textHint")}>
            <textarea
              id="mcp-import-text"
              className="input textarea mono mcp-import-text"
              rows={preview.data ? 5 : 10}
              value={text}
              spellCheck={false}
              placeholder={EXAMPLE}
              onChange={(e) => edit(() => setText(e.target.value))}
            />
          </Field>
          <div className="mcp-import-options">
            <Button size="sm" icon={<FolderOpen size={14} />} busy={pick.isPending} onClick={() => pick.mutate()} data-testid="mcp-import-file">
              {t("mcp.import.file")}
            </Button>
            <label className="check">
              <input type="checkbox" checked={resolve} onChange={(e) => edit(() => setResolve(e.target.checked))} data-testid="mcp-import-resolve" />
              <span>{t("mcp.import.resolve")}</span>
            </label>
          </div>
          <p className="field-hint">{resolve ? t("mcp.import.resolveOn") : t("mcp.import.resolveOff")}</p>
          {error && <Banner tone="danger">{errorText(t, error)}</Banner>}
          {preview.data && <PreviewTable preview={preview.data} chosen={chosen} onToggle={toggle} />}
        </div>
      )}
    </Dialog>
  );
}

function PreviewTable({ preview, chosen, onToggle }: { preview: McpImportPreview; chosen: Set<string>; onToggle(name: string, on: boolean): void }) {
  const { t } = useTranslation();
  const c = preview.counts;
  return (
    <section className="mcp-import-preview" data-testid="mcp-import-table">
      <p className="small">
        <strong>{t(`mcp.import.sources.${preview.source}`)}</strong> ·{" "}
        <span data-testid="mcp-import-counts">{t("mcp.import.counts", { new: c.new, exists: c.exists, invalid: c.invalid })}</span>
      </p>
      {preview.notes.map((note) => (
        <p key={note} className="muted small">
          {note}
        </p>
      ))}
      <table className="mcp-import-table">
        <colgroup>
          <col className="mcp-col-choose" />
          <col className="mcp-col-server" />
          <col className="mcp-col-status" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">{t("mcp.import.choose")}</span>
            </th>
            <th scope="col">{t("mcp.import.columns.server")}</th>
            <th scope="col">{t("mcp.import.columns.status")}</th>
            <th scope="col">{t("mcp.import.columns.details")}</th>
          </tr>
        </thead>
        <tbody>
          {preview.entries.map((entry) => (
            <EntryRow key={entry.name} entry={entry} chosen={chosen.has(entry.name)} onToggle={(on) => onToggle(entry.name, on)} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function EntryRow({ entry, chosen, onToggle }: { entry: McpImportEntry; chosen: boolean; onToggle(on: boolean): void }) {
  const { t } = useTranslation();
  const importable = entry.status === "new";
  return (
    <tr className={`mcp-import-row mcp-import-${entry.status}`} data-testid={`mcp-import-entry-${entry.name}`} data-status={entry.status}>
      <td>
        <input
          type="checkbox"
          checked={importable && chosen}
          disabled={!importable}
          aria-label={t("mcp.import.chooseOne", { name: entry.name })}
          onChange={(e) => onToggle(e.target.checked)}
          data-testid={`mcp-import-choose-${entry.name}`}
        />
      </td>
      <td className="mcp-import-server">
        <strong>{entry.name}</strong>
        {entry.target && (
          <code className="mcp-target" title={entry.target}>
            {entry.target}
          </code>
        )}
        {entry.transport && <span className="badge">{t(`mcp.kinds.${entry.transport}`, { defaultValue: entry.transport })}</span>}
      </td>
      <td>
        <span className={`mcp-import-status mcp-import-status-${entry.status}`} data-testid="mcp-import-status">
          {t(`mcp.import.status.${entry.status}`)}
        </span>
        {entry.existing && <p className="muted small">{t("mcp.import.existing", { name: entry.existing.name })}</p>}
        {entry.problem && (
          <p className="field-error small" title={entry.problem.message}>
            {t(`mcp.import.problems.${entry.problem.reason}`, { defaultValue: entry.problem.reason })}: {entry.problem.message}
          </p>
        )}
      </td>
      <td className="mcp-import-details">
        {entry.secrets.length > 0 && (
          <p className="small mcp-import-secrets" data-testid="mcp-import-secrets">
            <Lock size={12} aria-hidden="true" /> {t("mcp.import.secrets", { names: entry.secrets.join(", ") })}
          </p>
        )}
        {entry.references.length > 0 && (
          <p className="small mcp-import-refs" data-testid="mcp-import-refs">
            {entry.references.map((ref) => (
              <span key={ref.name} className={ref.set || ref.hasDefault ? "mcp-ref mcp-ref-set" : "mcp-ref mcp-ref-unset"}>
                <code>{`\${${ref.name}}`}</code> {ref.set ? t("mcp.import.refSet") : ref.hasDefault ? t("mcp.import.refDefault") : t("mcp.import.refUnset")}
                {ref.sentTo && (
                  <strong className="mcp-ref-sent" data-testid={`mcp-import-sent-${ref.name}`}>
                    {" · "}
                    {t("mcp.import.sentTo", { origin: ref.sentTo })}
                  </strong>
                )}
              </span>
            ))}
          </p>
        )}
        {entry.plainVars.length > 0 && (
          <p className="small mcp-import-plain" data-testid="mcp-import-plain">
            {t(entry.transport === "http" ? "mcp.import.plainHeaders" : "mcp.import.plainEnv")}{" "}
            {entry.plainVars.map((v) => (
              <code key={v.name} className="mcp-plain-var">
                {v.name}={v.value}
              </code>
            ))}
          </p>
        )}
        {entry.cwd && (
          <p className="small" data-testid="mcp-import-cwd">
            {t("mcp.import.cwd")} <code>{entry.cwd}</code>
          </p>
        )}
        {[...entry.notes, ...(entry.ignored.length > 0 ? [t("mcp.import.ignored", { fields: entry.ignored.join(", ") })] : [])].map((note) => (
          <p key={note} className="muted small">
            {note}
          </p>
        ))}
      </td>
    </tr>
  );
}

function ImportSummary({ outcome }: { outcome: McpImportOutcome }) {
  const { t } = useTranslation();
  return (
    <div className="mcp-import-summary" data-testid="mcp-import-summary">
      {outcome.added.length > 0 ? (
        <Banner tone="success">
          {t("mcp.import.added", { count: outcome.added.length, names: outcome.added.map((s) => s.name).join(", ") })}
        </Banner>
      ) : (
        <Banner tone="info">{t("mcp.import.addedNone")}</Banner>
      )}
      {outcome.added.length > 0 && <p className="muted small">{t("mcp.import.addedHint")}</p>}
      {outcome.skipped.length > 0 && <p className="small">{t("mcp.import.skipped", { names: outcome.skipped.map((e) => e.name).join(", ") })}</p>}
      {outcome.invalid.length > 0 && <p className="small">{t("mcp.import.invalidOnes", { names: outcome.invalid.map((e) => e.name).join(", ") })}</p>}
      {outcome.failed.map((f) => (
        <p key={f.name} className="field-error small">
          {t("mcp.import.failed", { name: f.name, error: f.error.message })}
        </p>
      ))}
    </div>
  );
}
