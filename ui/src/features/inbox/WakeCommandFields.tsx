import { useTranslation } from "react-i18next";
import { Terminal } from "lucide-react";

import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { CLAUDE_PRESET, DEFAULT_WAKE_TIMEOUT_SECONDS, argv, type WakeDraft, type WakeMode } from "./wakeCommand";

interface Props {
  value: WakeDraft;
  onChange(next: WakeDraft): void;
  /** Field errors from the last save, by field. */
  errors: { wakeCommand?: string | null; wakeTimeoutSeconds?: string | null };
}

/** "How is this role woken?": by its agent, by a command (a session outside
 * Colmena, such as Claude Code, started with the role's token in its
 * environment), or not at all — it polls its inbox itself. The command is
 * edited as a program and a list of arguments and shown as that list: no
 * shell runs it, and no message ever reaches its command line. */
export function WakeCommandFields({ value, onChange, errors }: Props) {
  const { t } = useTranslation();
  const set = (patch: Partial<WakeDraft>) => onChange({ ...value, ...patch });
  const modes: { value: WakeMode; label: string; testId: string }[] = [
    { value: "agent", label: t("wakeCommand.mode.agent"), testId: "wake-mode-agent" },
    { value: "command", label: t("wakeCommand.mode.command"), testId: "wake-mode-command" },
    { value: "poll", label: t("wakeCommand.mode.poll"), testId: "wake-mode-poll" },
  ];
  const items = argv(value);
  return (
    <div className="wake-command" data-testid="wake-command-fields">
      <div className="field">
        <span className="field-label">{t("wakeCommand.question")}</span>
        <Segmented<WakeMode> label={t("wakeCommand.question")} value={value.mode} options={modes} onChange={(mode) => set({ mode })} />
        <p className="field-hint">{t(`wakeCommand.modeHint.${value.mode}`)}</p>
      </div>
      {value.mode === "command" && (
        <>
          <div className="wake-command-preset">
            <Button
              size="sm"
              icon={<Terminal size={14} />}
              onClick={() => set({ program: CLAUDE_PRESET.program, args: CLAUDE_PRESET.args.join("\n") })}
              data-testid="wake-preset-claude"
            >
              {t("wakeCommand.presetClaude")}
            </Button>
            <span className="field-hint">{t("wakeCommand.presetHint")}</span>
          </div>
          <Field id="wake-program" label={t("wakeCommand.program")} hint={t("wakeCommand.programHint")} error={errors.wakeCommand}>
            <input
              id="wake-program"
              className="input mono"
              value={value.program}
              spellCheck={false}
              autoCapitalize="off"
              onChange={(e) => set({ program: e.target.value })}
              data-testid="wake-program"
            />
          </Field>
          <Field id="wake-args" label={t("wakeCommand.args")} hint={t("wakeCommand.argsHint")}>
            <textarea
              id="wake-args"
              className="input textarea mono"
              rows={5}
              value={value.args}
              spellCheck={false}
              onChange={(e) => set({ args: e.target.value })}
              data-testid="wake-args"
            />
          </Field>
          {items.length > 0 && (
            <div className="field">
              <span className="field-label">{t("wakeCommand.runs")}</span>
              <ol className="wake-argv" data-testid="wake-argv">
                {items.map((item, i) => (
                  <li key={i}>
                    <code>{item}</code>
                  </li>
                ))}
              </ol>
              <p className="field-hint">{t("wakeCommand.noShell")}</p>
            </div>
          )}
          <Field id="wake-timeout" label={t("wakeCommand.timeout")} hint={t("wakeCommand.timeoutHint")} error={errors.wakeTimeoutSeconds}>
            <input
              id="wake-timeout"
              className="input"
              type="number"
              min={1}
              max={86400}
              placeholder={String(DEFAULT_WAKE_TIMEOUT_SECONDS)}
              value={value.timeout}
              onChange={(e) => set({ timeout: e.target.value })}
              data-testid="wake-timeout"
            />
          </Field>
          <p className="field-hint" data-testid="wake-env-hint">
            {t("wakeCommand.envHint")}
          </p>
        </>
      )}
    </div>
  );
}

/** A wake command on one line, for the role's header: each item as it is
 * passed (quoted here only when it holds spaces, so the items stay apart). */
export function WakeCommandLine({ argv: items }: { argv: string[] }) {
  const shown = items.map((item) => (item === "" || /\s|"/.test(item) ? JSON.stringify(item) : item)).join(" ");
  return (
    <code className="role-command" title={shown}>
      {shown}
    </code>
  );
}
