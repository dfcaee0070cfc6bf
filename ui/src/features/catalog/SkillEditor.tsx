// One skill's form: its description and markdown body with a live
// preview, ending in the sticky Save bar.

import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Trash2 } from "lucide-react";

import { api, type ApiError, type Skill } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Markdown } from "../../components/Markdown";
import { changedKeys, SaveBar, useDraft } from "../../components/SaveBar";
import { Switch } from "../../components/Switch";
import { useUndo } from "../../components/UndoToast";
import { errorText, fieldErrorText } from "../../app/errorText";
import { useAgentName } from "./agentName";
import { agentsQuery, catalogKeys } from "./queries";
import { skillTitle } from "./skillName";
import { OffBadge } from "./SkillToggles";

const FIELDS = ["name", "description", "compatibility"];
const LABELS = { name: "skills.fields.name", description: "skills.fields.description", body: "skills.fields.body" } as const;

const draftOf = (skill?: Skill) => ({ name: skill?.id ?? "", description: skill?.description ?? "", body: skill?.body ?? "" });

/** Edits a skill's description and markdown body, with a live preview. */
export function SkillEditor({
  skill,
  onSaved,
  onDeleted,
  onRestored,
}: {
  skill?: Skill;
  onSaved(skill: Skill): void;
  onDeleted(): void;
  /** Undo of a delete: show the skill again. */
  onRestored?(id: string): void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const agents = useQuery(agentsQuery).data ?? [];
  const agentName = useAgentName();
  const usedBy = (skill?.usedBy ?? []).map((id) => {
    const agent = agents.find((a) => a.id === id);
    return agent ? agentName(agent) : id;
  });
  const form = useDraft(draftOf(skill), skill?.updatedAt);
  const { name, description, body } = form.draft;
  const changes = changedKeys(form.saved, form.draft).map((key) => t(LABELS[key]));
  const refresh = () => {
    void client.invalidateQueries({ queryKey: catalogKeys.skills });
    void client.invalidateQueries({ queryKey: catalogKeys.diskSkills });
  };

  const save = useMutation<Skill, ApiError>({
    mutationFn: () => {
      const draft = {
        name,
        description,
        body,
        license: skill?.license ?? null,
        compatibility: skill?.compatibility ?? null,
        metadata: skill?.metadata ?? {},
        allowedTools: skill?.allowedTools ?? null,
      };
      return skill ? api.updateSkill(skill.id, draft) : api.createSkill(draft);
    },
    onSuccess: (saved) => {
      form.commit(draftOf(saved), saved.updatedAt);
      refresh();
      onSaved(saved);
    },
  });
  const toggle = useMutation<Skill, ApiError, boolean>({
    mutationFn: (active) => api.setSkillActive(skill?.id ?? "", active),
    onSettled: refresh,
  });
  const undo = useUndo();
  // Hidden at once; really deleted when the Undo toast runs out (a skill an
  // agent still uses is refused then, and the toast says so).
  const remove = (gone: Skill) => {
    undo.schedule({
      key: `skill:${gone.id}`,
      label: t("forms.deleted", { name: skillTitle(gone) }),
      commit: async () => {
        await api.deleteSkill(gone.id);
        refresh();
      },
      onUndo: () => onRestored?.(gone.id),
    });
    onDeleted();
  };
  const problems = save.error?.fieldProblems() ?? {};
  const generalError =
    save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form className="card editor" onSubmit={submit} noValidate data-testid="skill-editor">
      <header className="editor-head">
        <div>
          <h3>{skill ? skillTitle(skill) : t("skills.newTitle")}</h3>
          {skill && (
            <p className="muted small">
              <span className="mono">{skill.id}</span>
              <span className="badge">{t(`skills.origins.${skill.origin}`)}</span>
              {!skill.active && <OffBadge kind="skill" />}
              {usedBy.length > 0 && <> {t("skills.usedBy", { agents: usedBy.join(", ") })}</>}
            </p>
          )}
        </div>
        {skill && (
          <Switch checked={skill.active} disabled={toggle.isPending} label={t("skills.toggle", { name: skill.id })} onChange={(a) => toggle.mutate(a)} />
        )}
      </header>
      {generalError && <Banner tone="danger">{generalError}</Banner>}
      {!skill && (
        <Field id="skill-name" label={t("skills.fields.name")} error={fieldErrorText(t, problems.name, save.error)} hint={t("skills.nameHint")}>
          <input id="skill-name" className="input mono" value={name} spellCheck={false} placeholder="meeting-minutes" onChange={(e) => form.set("name")(e.target.value)} aria-invalid={Boolean(problems.name)} />
        </Field>
      )}
      <Field id="skill-description" label={t("skills.fields.description")} error={fieldErrorText(t, problems.description, save.error)} hint={t("skills.descriptionHint")}>
        <input id="skill-description" className="input" value={description} onChange={(e) => form.set("description")(e.target.value)} aria-invalid={Boolean(problems.description)} />
      </Field>
      <div className="field">
        <label className="field-label" htmlFor="skill-body">
          {t("skills.fields.body")}
        </label>
        <div className="md-split">
          <textarea id="skill-body" className="input textarea mono" rows={16} value={body} onChange={(e) => form.set("body")(e.target.value)} />
          <div className="md-preview" aria-label={t("skills.preview")} data-testid="skill-preview">
            {body.trim() ? <Markdown source={body} /> : <p className="muted">{t("skills.previewEmpty")}</p>}
          </div>
        </div>
      </div>
      {skill && (
        <div className="editor-actions">
          <Button variant="ghost" icon={<Trash2 size={15} />} onClick={() => remove(skill)} data-testid="delete-skill">
            {t("common.delete")}
          </Button>
        </div>
      )}
      <SaveBar
        changes={changes}
        onDiscard={form.discard}
        busy={save.isPending}
        saveLabel={skill ? t("common.save") : t("skills.create")}
        saveTestId="save-skill"
        isNew={!skill}
        subject={skill ? skillTitle(skill) : t("skills.newTitle")}
      />
    </form>
  );
}
