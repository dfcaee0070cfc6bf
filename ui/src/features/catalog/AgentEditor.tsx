import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { FileText, Trash2 } from "lucide-react";

import { api, type Agent, type ApiError, type Permissions } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Switch } from "../../components/Switch";
import { errorText, fieldErrorText } from "../../app/errorText";
import { PatternPreview } from "./PatternPreview";
import { DEFAULT_PERMISSIONS, PermissionsFields } from "./PermissionsFields";
import { PromptPreviewDialog } from "./PromptPreviewDialog";
import { catalogKeys, enabledModelsQuery, parsePatterns, skillsQuery } from "./queries";

interface AgentEditorProps {
  /** The agent to edit; absent for a new one. */
  agent?: Agent;
  onSaved(agent: Agent): void;
  onDeleted(): void;
}

const FIELDS = ["name", "description", "systemPrompt", "modelId", "tools", "skills", "mcpServers"];

export function AgentEditor({ agent, onSaved, onDeleted }: AgentEditorProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const models = useQuery(enabledModelsQuery).data ?? [];
  const skills = useQuery(skillsQuery).data ?? [];

  const [name, setName] = useState(agent?.name ?? "");
  const [description, setDescription] = useState(agent?.description ?? "");
  const [systemPrompt, setSystemPrompt] = useState(agent?.systemPrompt ?? "");
  const [modelId, setModelId] = useState(agent?.modelId ?? "");
  const [patterns, setPatterns] = useState(agent?.toolPatterns.join(", ") ?? "");
  const [chosenSkills, setChosenSkills] = useState<string[]>(agent?.skills ?? []);
  const [permissions, setPermissions] = useState<Permissions>(agent?.permissions ?? DEFAULT_PERMISSIONS);
  const [previewing, setPreviewing] = useState(false);

  const refresh = () => {
    void client.invalidateQueries({ queryKey: catalogKeys.agents });
    void client.invalidateQueries({ queryKey: catalogKeys.skills });
  };

  const save = useMutation<Agent, ApiError>({
    mutationFn: () => {
      const tools = parsePatterns(patterns);
      if (agent) {
        return api.updateAgent(agent.id, {
          name,
          description,
          systemPrompt,
          modelId: modelId || null,
          clearModel: !modelId,
          tools,
          skills: chosenSkills,
          permissions,
        });
      }
      return api.createAgent({ name, description, systemPrompt, modelId: modelId || null, tools, skills: chosenSkills, permissions });
    },
    onSuccess: (saved) => {
      refresh();
      onSaved(saved);
    },
  });
  const toggle = useMutation<unknown, ApiError, boolean>({
    mutationFn: (enabled) =>
      agent?.persona
        ? enabled
          ? api.enableCatalogAgent(agent.id)
          : api.disableCatalogAgent(agent.id)
        : api.setAgentEnabled(agent?.id ?? "", enabled),
    onSettled: () => {
      refresh();
      void client.invalidateQueries({ queryKey: catalogKeys.tools });
    },
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => api.deleteAgent(agent?.id ?? ""),
    onSuccess: () => {
      refresh();
      onDeleted();
    },
  });

  const problems = save.error?.fieldProblems() ?? {};
  const generalError =
    (save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null) ??
    (remove.error ? errorText(t, remove.error) : null) ??
    (toggle.error ? errorText(t, toggle.error) : null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form className="card editor" onSubmit={submit} noValidate data-testid="agent-editor">
      <header className="editor-head">
        <div>
          <h3>{agent ? agent.name : t("agents.newTitle")}</h3>
          {agent && (
            <p className="muted small mono">
              {agent.id}
              {agent.persona && <span className="badge badge-accent">{t("agents.specialist")}</span>}
            </p>
          )}
        </div>
        {agent && (
          <Switch
            checked={agent.enabled}
            disabled={toggle.isPending}
            label={t("agents.toggle", { name: agent.name })}
            testId="agent-enabled"
            onChange={(enabled) => toggle.mutate(enabled)}
          />
        )}
      </header>
      {generalError && <Banner tone="danger">{generalError}</Banner>}
      <div className="form-grid">
        <Field id="agent-name" label={t("agents.fields.name")} error={fieldErrorText(t, problems.name)}
          hint={agent ? t("agents.idStays", { id: agent.id }) : t("agents.idFromName")}>
          <input id="agent-name" className="input" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={Boolean(problems.name)} />
        </Field>
        <Field id="agent-model" label={t("agents.fields.model")} error={fieldErrorText(t, problems.modelId)}>
          <select id="agent-model" className="input" value={modelId} onChange={(e) => setModelId(e.target.value)}>
            <option value="">{t("agents.noModel")}</option>
            {agent?.modelId && !models.some((m) => m.id === agent.modelId) && (
              <option value={agent.modelId}>{agent.modelId}</option>
            )}
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label ?? m.id}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field id="agent-description" label={t("agents.fields.description")} error={fieldErrorText(t, problems.description)}>
        <input id="agent-description" className="input" value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <Field id="agent-prompt" label={t("agents.fields.systemPrompt")} error={fieldErrorText(t, problems.systemPrompt)}>
        <textarea id="agent-prompt" className="input textarea" rows={5} value={systemPrompt} onChange={(e) => setSystemPrompt(e.target.value)} />
      </Field>
      <Field id="agent-tools" label={t("agents.fields.tools")} error={fieldErrorText(t, problems.tools, save.error)}>
        <input
          id="agent-tools"
          className="input mono"
          value={patterns}
          spellCheck={false}
          placeholder="web_*, fs_read"
          aria-invalid={Boolean(problems.tools)}
          onChange={(e) => setPatterns(e.target.value)}
        />
      </Field>
      <PatternPreview text={patterns} />
      <fieldset className="field skills-picker">
        <legend className="field-label">{t("agents.fields.skills")}</legend>
        {skills.length === 0 && <p className="field-hint">{t("agents.noSkills")}</p>}
        <div className="check-grid">
          {skills.map((skill) => (
            <label key={skill.id} className="check" title={skill.description}>
              <input
                type="checkbox"
                checked={chosenSkills.includes(skill.id)}
                onChange={(e) =>
                  setChosenSkills((current) => (e.target.checked ? [...current, skill.id] : current.filter((s) => s !== skill.id)))
                }
              />
              <span className="mono">{skill.id}</span>
              {!skill.active && <span className="muted small">({t("common.off")})</span>}
            </label>
          ))}
        </div>
        {problems.skills && (
          <p className="field-error" role="alert" data-testid="error-skills">
            {fieldErrorText(t, problems.skills, save.error)}
          </p>
        )}
      </fieldset>
      <PermissionsFields value={permissions} onChange={setPermissions} />
      <footer className="editor-foot">
        {agent && !agent.persona && (
          <Button variant="ghost" icon={<Trash2 size={15} />} busy={remove.isPending} onClick={() => remove.mutate()} data-testid="delete-agent">
            {t("common.delete")}
          </Button>
        )}
        {agent && (
          <Button variant="ghost" icon={<FileText size={15} />} onClick={() => setPreviewing(true)}>
            {t("agents.previewPrompt")}
          </Button>
        )}
        <span className="spacer" />
        <Button variant="primary" type="submit" busy={save.isPending} data-testid="save-agent">
          {agent ? t("common.save") : t("agents.create")}
        </Button>
      </footer>
      {previewing && agent && <PromptPreviewDialog agent={agent} onClose={() => setPreviewing(false)} />}
    </form>
  );
}
