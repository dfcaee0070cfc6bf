// Adding or editing an MCP server: a program on this computer (stdio) or a
// URL (streamable HTTP), with its variables or headers, secrets among them.
// Saving tests it at once, so the person sees in the same dialog whether it
// starts and which tools it brings — or why not, in the program's own words.
// A ${VAR} reference of a URL server is flagged with the origin its value is
// sent to, and one to Colmena's own variables (refused on save) at once.

import { useEffect, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { mcpApi, type ApiError, type McpServer, type McpServerInput, type McpTestResult } from "../../api";
import { errorText, fieldErrorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { Spinner } from "../../components/Spinner";
import { McpTestPanel } from "./McpTestPanel";
import { McpVarRows } from "./McpVarRows";
import { useMcpRefresh } from "./McpServerRow";
import { draftOfInput, draftOfServer, inputOf, timeoutOf, type McpDraft, type McpKind } from "./mcpDraft";
import { reservedReferences, sentReferences } from "./mcpReferences";

/** The backend's field names this form shows next to a field. */
const FIELDS = ["name", "command", "args", "cwd", "env", "url", "headers", "timeoutSeconds"];

interface McpServerDialogProps {
  /** The server to edit; absent to add one. */
  server?: McpServer;
  /** A preset's input to start a new server from. */
  preset?: McpServerInput;
  /** What the preset needs that this computer lacks. */
  missing?: string | null;
  onClose(): void;
}

interface Saved {
  server: McpServer;
  /** The test run after the save; `null` while it runs or when the server is off. */
  result: McpTestResult | null;
}

export function McpServerDialog({ server, preset, missing = null, onClose }: McpServerDialogProps) {
  const { t } = useTranslation();
  const refresh = useMcpRefresh();
  const [draft, setDraft] = useState<McpDraft>(() => (server ? draftOfServer(server) : draftOfInput(preset)));
  const [saved, setSaved] = useState<Saved | null>(null);
  const [timeoutError, setTimeoutError] = useState(false);
  const set = <K extends keyof McpDraft>(key: K) => (value: McpDraft[K]) => setDraft((was) => ({ ...was, [key]: value }));
  // After the first save the dialog edits what was saved.
  const current = saved?.server ?? server;

  const test = useMutation<McpTestResult, ApiError, McpServer>({
    mutationFn: (s) => mcpApi.test(s.id),
    onSuccess: (result, s) => setSaved({ server: s, result }),
    onSettled: refresh,
  });
  const save = useMutation<McpServer, ApiError>({
    mutationFn: () => {
      const input = inputOf(draft, { enabled: current?.enabled ?? true, preset: current?.preset ?? preset?.preset ?? null });
      return current ? mcpApi.update(current.id, input) : mcpApi.create(input);
    },
    onSuccess: (s) => {
      setSaved({ server: s, result: null });
      // The stored secrets are masked now: the rows show their masks.
      setDraft(draftOfServer(s));
      refresh();
      if (s.enabled) test.mutate(s);
    },
  });

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const badTimeout = timeoutOf(draft.timeout) === "invalid";
    setTimeoutError(badTimeout);
    if (!badTimeout) save.mutate();
  };

  const problems = save.error?.fieldProblems() ?? {};
  const fieldError = (field: string) => fieldErrorText(t, problems[field], save.error);
  const generalError = save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null;
  const kinds: { value: McpKind; label: string; testId: string }[] = [
    { value: "stdio", label: t("mcp.kinds.stdioLong"), testId: "mcp-kind-stdio" },
    { value: "http", label: t("mcp.kinds.httpLong"), testId: "mcp-kind-http" },
  ];
  const busy = save.isPending || test.isPending;
  // The outcome opens under a long form: bring it into view as it arrives.
  const resultRef = useRef<HTMLDivElement>(null);
  const outcome = saved ? (test.isPending ? "testing" : saved.result ? "result" : "saved") : null;
  useEffect(() => {
    if (outcome) resultRef.current?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
  }, [outcome]);
  const title = current ? t("mcp.dialog.editTitle", { name: current.name }) : t("mcp.dialog.addTitle");
  const sent = sentReferences(draft);
  const reserved = reservedReferences(draft);
  const refList = (names: string[]) => names.map((n) => `\${${n}}`).join(", ");

  return (
    <Dialog
      title={title}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="mcp-dialog"
      width={640}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} data-testid="mcp-dialog-close">
            {saved ? t("common.done") : t("common.cancel")}
          </Button>
          <Button variant="primary" busy={busy} onClick={() => submit()} data-testid="mcp-save">
            {current ? t("mcp.dialog.saveAndTest") : t("mcp.dialog.addAndTest")}
          </Button>
        </>
      }
    >
      <form className="form mcp-form" onSubmit={submit} noValidate>
        {missing && !current && <Banner tone="warning" testId="mcp-preset-missing">{t("mcp.presets.missing", { what: missing })}</Banner>}
        {generalError && <Banner tone="danger">{generalError}</Banner>}
        <Field id="mcp-name" label={t("mcp.fields.name")} error={fieldError("name")} hint={current ? t("mcp.dialog.idStays", { id: current.id }) : t("mcp.dialog.idFromName")}>
          <input id="mcp-name" className="input" value={draft.name} onChange={(e) => set("name")(e.target.value)} aria-invalid={Boolean(problems.name)} />
        </Field>
        <div className="field">
          <span className="field-label">{t("mcp.fields.kind")}</span>
          <Segmented<McpKind> label={t("mcp.fields.kind")} value={draft.kind} options={kinds} onChange={set("kind")} />
        </div>
        {draft.kind === "stdio" ? (
          <>
            <Field id="mcp-command" label={t("mcp.fields.command")} error={fieldError("command")} hint={t("mcp.dialog.commandHint")}>
              <input id="mcp-command" className="input mono" value={draft.command} spellCheck={false} placeholder="npx" onChange={(e) => set("command")(e.target.value)} aria-invalid={Boolean(problems.command)} />
            </Field>
            <Field id="mcp-args" label={t("mcp.fields.args")} error={fieldError("args")} hint={t("mcp.dialog.argsHint")}>
              <textarea id="mcp-args" className="input textarea mono" rows={3} value={draft.args} spellCheck={false} placeholder={"-y\n@modelcontextprotocol/server-everything"} onChange={(e) => set("args")(e.target.value)} />
            </Field>
            <Field id="mcp-cwd" label={t("mcp.fields.cwd")} error={fieldError("cwd")} hint={t("mcp.dialog.cwdHint")}>
              <input id="mcp-cwd" className="input mono" value={draft.cwd} spellCheck={false} onChange={(e) => set("cwd")(e.target.value)} aria-invalid={Boolean(problems.cwd)} />
            </Field>
            <McpVarRows kind="env" rows={draft.env} onChange={set("env")} error={fieldError("env")} />
          </>
        ) : (
          <>
            <Field id="mcp-url" label={t("mcp.fields.url")} error={fieldError("url")} hint={t("mcp.dialog.urlHint")}>
              <input id="mcp-url" className="input mono" value={draft.url} spellCheck={false} placeholder="https://example.com/mcp" onChange={(e) => set("url")(e.target.value)} aria-invalid={Boolean(problems.url)} />
            </Field>
            <McpVarRows kind="headers" rows={draft.headers} onChange={set("headers")} error={fieldError("headers")} />
            {sent && (
              <p className="field-hint mcp-sent-to" data-testid="mcp-sent-to">
                {t("mcp.dialog.sentTo", { origin: sent.origin, names: refList(sent.names) })}
              </p>
            )}
          </>
        )}
        {reserved.length > 0 && (
          <Banner tone="warning" testId="mcp-colmena-reference">
            {t("mcp.dialog.colmenaReference", { names: refList(reserved) })}
          </Banner>
        )}
        <Field
          id="mcp-timeout"
          label={t("mcp.fields.timeout")}
          error={timeoutError ? t("mcp.dialog.timeoutWhole") : fieldError("timeoutSeconds")}
          hint={t("mcp.dialog.timeoutHint")}
        >
          <input id="mcp-timeout" className="input mcp-timeout" inputMode="numeric" value={draft.timeout} placeholder="120" onChange={(e) => set("timeout")(e.target.value)} />
        </Field>
        {/* Enter in a field saves, as the button does. */}
        <button type="submit" hidden />
      </form>
      {saved && (
        <div className="mcp-dialog-result" aria-live="polite" ref={resultRef}>
          {test.isPending ? (
            <p className="muted mcp-testing" data-testid="mcp-testing">
              <Spinner size={14} /> {t("mcp.testing")}
            </p>
          ) : saved.result ? (
            <McpTestPanel result={saved.result} />
          ) : test.error ? (
            <Banner tone="danger">{errorText(t, test.error)}</Banner>
          ) : (
            !saved.server.enabled && <p className="muted small">{t("mcp.dialog.savedOff")}</p>
          )}
        </div>
      )}
    </Dialog>
  );
}
