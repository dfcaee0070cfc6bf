import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Trash2 } from "lucide-react";

import { api, type ApiError, type Skill } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Markdown } from "../../components/Markdown";
import { Switch } from "../../components/Switch";
import { errorText, fieldErrorText } from "../../app/errorText";
import { catalogKeys } from "./queries";

const FIELDS = ["name", "description", "compatibility"];

/** Edits a skill's description and markdown body, with a live preview. */
export function SkillEditor({ skill, onSaved, onDeleted }: { skill?: Skill; onSaved(skill: Skill): void; onDeleted(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [name, setName] = useState(skill?.id ?? "");
  const [description, setDescription] = useState(skill?.description ?? "");
  const [body, setBody] = useState(skill?.body ?? "");
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
      refresh();
      onSaved(saved);
    },
  });
  const toggle = useMutation<Skill, ApiError, boolean>({
    mutationFn: (active) => api.setSkillActive(skill?.id ?? "", active),
    onSettled: refresh,
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => api.deleteSkill(skill?.id ?? ""),
    onSuccess: () => {
      refresh();
      onDeleted();
    },
  });
  const problems = save.error?.fieldProblems() ?? {};
  const generalError =
    (save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null) ??
    (remove.error ? errorText(t, remove.error) : null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form className="card editor" onSubmit={submit} noValidate data-testid="skill-editor">
      <header className="editor-head">
        <div>
          <h3 className="mono">{skill ? skill.id : t("skills.newTitle")}</h3>
          {skill && (
            <p className="muted small">
              <span className="badge">{t(`skills.origins.${skill.origin}`)}</span>
              {skill.usedBy.length > 0 && <> {t("skills.usedBy", { agents: skill.usedBy.join(", ") })}</>}
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
          <input id="skill-name" className="input mono" value={name} spellCheck={false} placeholder="meeting-minutes" onChange={(e) => setName(e.target.value)} aria-invalid={Boolean(problems.name)} />
        </Field>
      )}
      <Field id="skill-description" label={t("skills.fields.description")} error={fieldErrorText(t, problems.description, save.error)} hint={t("skills.descriptionHint")}>
        <input id="skill-description" className="input" value={description} onChange={(e) => setDescription(e.target.value)} aria-invalid={Boolean(problems.description)} />
      </Field>
      <div className="field">
        <label className="field-label" htmlFor="skill-body">
          {t("skills.fields.body")}
        </label>
        <div className="md-split">
          <textarea id="skill-body" className="input textarea mono" rows={16} value={body} onChange={(e) => setBody(e.target.value)} />
          <div className="md-preview" aria-label={t("skills.preview")} data-testid="skill-preview">
            {body.trim() ? <Markdown source={body} /> : <p className="muted">{t("skills.previewEmpty")}</p>}
          </div>
        </div>
      </div>
      <footer className="editor-foot">
        {skill && (
          <Button variant="ghost" icon={<Trash2 size={15} />} busy={remove.isPending} onClick={() => remove.mutate()}>
            {t("common.delete")}
          </Button>
        )}
        <span className="spacer" />
        <Button variant="primary" type="submit" busy={save.isPending} data-testid="save-skill">
          {skill ? t("common.save") : t("skills.create")}
        </Button>
      </footer>
    </form>
  );
}
