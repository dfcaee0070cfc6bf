import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Copy, KeyRound } from "lucide-react";

import { GrantFields } from "../catalog/GrantFields";
import { inboxApi, type ApiError, type Author, type AuthorWithToken, type Risk } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { errorText, fieldErrorText } from "../../app/errorText";
import { agentsQuery, skillsQuery } from "../catalog/queries";
import { useAgentName } from "../catalog/agentName";
import { WakeCommandFields } from "./WakeCommandFields";
import { initialWake, wakePayload } from "./wakeCommand";

/** What a role's wake-ups may do with nobody watching, where its agent
 * asks. A new role may only answer who wrote to it. */
const UNATTENDED: Risk[] = ["reply", "send", "write", "run", "network", "act"];

/** A bearer token, shown once: copy it now. */
export function TokenPanel({ token, onDone }: { token: string; onDone(): void }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <div className="token-panel" data-testid="token-panel">
      <Banner tone="warning">{t("inbox.token.once")}</Banner>
      <div className="token-row">
        <KeyRound size={16} aria-hidden="true" />
        <code data-testid="author-token">{token}</code>
        <Button
          size="sm"
          icon={<Copy size={14} />}
          onClick={() => void navigator.clipboard?.writeText(token).then(() => setCopied(true))}
        >
          {copied ? t("inbox.token.copied") : t("inbox.token.copy")}
        </Button>
      </div>
      <div className="dialog-actions">
        <Button variant="primary" onClick={onDone} data-testid="token-done">
          {t("common.done")}
        </Button>
      </div>
    </div>
  );
}

/** Registers a role (name, the agent it runs, how often it wakes), or
 * changes an existing role's agent and schedule. */
export function RoleDialog({ role, onClose, onCreated }: { role?: Author; onClose(): void; onCreated?(id: string): void }) {
  const { t } = useTranslation();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery);
  const [name, setName] = useState(role?.name ?? "");
  const [agentId, setAgentId] = useState(role?.agentId ?? "");
  const [every, setEvery] = useState(String(role?.wakeIntervalMinutes ?? 30));
  const [unattended, setUnattended] = useState<Risk[]>(role?.unattended ?? ["reply"]);
  const [created, setCreated] = useState<AuthorWithToken | null>(null);
  const [wake, setWake] = useState(() => initialWake(role));
  const [instructions, setInstructions] = useState(role?.instructions ?? "");
  const [skills, setSkills] = useState<string[]>(role?.skills ?? []);
  const allSkills = useQuery(skillsQuery);
  const activeSkills = (allSkills.data ?? []).filter((s) => s.active);
  // "Woken by an agent" starts at the first agent that can run, never at none.
  const enabled = (agents.data ?? []).filter((a) => a.enabled || a.id === role?.agentId);
  const chosenAgent = agentId || enabled[0]?.id || "";
  const minutes = (wake.mode === "agent" && chosenAgent) || wake.mode === "command" ? Number.parseInt(every, 10) : null;
  const save = useMutation<Author | AuthorWithToken, ApiError>({
    mutationFn: () =>
      role
        ? inboxApi.updateAuthor(role.id, { wakeIntervalMinutes: minutes, unattended, instructions, skills, ...wakePayload(wake, chosenAgent) })
        : inboxApi.createAuthor({ name, wakeIntervalMinutes: minutes, unattended, instructions, skills, ...wakePayload(wake, chosenAgent) }),
    onSuccess: (saved) => {
      if ("token" in saved) {
        setCreated(saved);
        onCreated?.(saved.id);
      } else onClose();
    },
  });
  const problems = save.error?.fieldProblems() ?? {};
  const general =
    save.error && !problems.name && !problems.agentId && !problems.wakeIntervalMinutes && !problems.wakeCommand && !problems.wakeTimeoutSeconds && !problems.instructions && !problems.skills
      ? errorText(t, save.error)
      : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const title = role ? t("inbox.role.editTitle", { name: role.name }) : t("inbox.role.newTitle");
  return (
    <Dialog title={title} onClose={onClose} closeLabel={t("common.close")} testId="role-dialog" width={560}>
      {created ? (
        <TokenPanel token={created.token} onDone={onClose} />
      ) : (
        <form onSubmit={submit} className="form">
          {!role && (
            <Field id="role-name" label={t("inbox.role.name")} hint={t("inbox.role.nameHint")} error={fieldErrorText(t, problems.name, save.error)}>
              <input id="role-name" className="input" value={name} onChange={(e) => setName(e.target.value)} data-testid="role-name" />
            </Field>
          )}
          <WakeCommandFields
            value={wake}
            onChange={setWake}
            errors={{
              wakeCommand: fieldErrorText(t, problems.wakeCommand, save.error),
              wakeTimeoutSeconds: fieldErrorText(t, problems.wakeTimeoutSeconds, save.error),
            }}
          />
          {wake.mode === "agent" && (
            <Field id="role-agent" label={t("inbox.role.agent")} hint={t("inbox.role.agentHint")} error={fieldErrorText(t, problems.agentId, save.error)}>
              <select id="role-agent" className="input" value={chosenAgent} onChange={(e) => setAgentId(e.target.value)} data-testid="role-agent">
                {enabled.length === 0 && (
                  <option value="" disabled>
                    {t("inbox.role.noAgent")}
                  </option>
                )}
                {enabled.map((a) => (
                  <option key={a.id} value={a.id}>
                    {agentName(a)}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <Field
            id="role-every"
            label={t("inbox.role.every")}
            hint={t("inbox.role.everyHint")}
            error={fieldErrorText(t, problems.wakeIntervalMinutes, save.error)}
          >
            <input
              id="role-every"
              className="input"
              type="number"
              min={1}
              max={10080}
              value={every}
              disabled={minutes === null}
              onChange={(e) => setEvery(e.target.value)}
              data-testid="role-every"
            />
          </Field>
          {wake.mode === "agent" && chosenAgent && (
            <GrantFields
              classes={UNATTENDED}
              value={unattended}
              onChange={setUnattended}
              hint={t("permissions.unattended.hint")}
              testId="role-unattended"
              boxTestId="unattended"
            />
          )}
          {wake.mode === "agent" && chosenAgent && (
            <>
              <Field id="role-instructions" label={t("roleScope.instructions")} hint={t("roleScope.instructionsHint")} error={fieldErrorText(t, problems.instructions, save.error)}>
                <textarea
                  id="role-instructions"
                  className="input"
                  rows={4}
                  maxLength={20000}
                  value={instructions}
                  onChange={(e) => setInstructions(e.target.value)}
                  data-testid="role-instructions"
                />
              </Field>
              <fieldset className="field rules-box" data-testid="role-skills">
                <legend className="field-label">{t("roleScope.skills")}</legend>
                <p className="field-hint">{t("roleScope.skillsHint")}</p>
                {activeSkills.length === 0 ? (
                  <p className="muted small">{t("roleScope.noSkills")}</p>
                ) : (
                  <div className="check-grid">
                    {activeSkills.map((skill) => (
                      <label key={skill.id} className="check" title={skill.description}>
                        <input
                          type="checkbox"
                          checked={skills.includes(skill.id)}
                          onChange={(e) => setSkills((list) => (e.target.checked ? [...list, skill.id] : list.filter((s) => s !== skill.id)))}
                          data-testid={`role-skill-${skill.id}`}
                        />
                        <span>{skill.id}</span>
                      </label>
                    ))}
                  </div>
                )}
                {problems.skills && <p className="field-error">{fieldErrorText(t, problems.skills, save.error)}</p>}
              </fieldset>
            </>
          )}
          {general && <Banner tone="danger">{general}</Banner>}
          <div className="dialog-actions">
            <Button onClick={onClose}>{t("common.cancel")}</Button>
            <Button type="submit" variant="primary" busy={save.isPending} data-testid="role-save">
              {role ? t("common.save") : t("inbox.role.create")}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
