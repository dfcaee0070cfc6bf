// One agent's form: name, model, description, prompt, the tools it may call
// (picked by name, or patterns in the advanced mode), its skills as named
// toggles and its permission rules — ending in the sticky Save bar that
// counts what changed and asks before the changes are left behind.

import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { FileText, Trash2 } from "lucide-react";

import { api, type Agent, type ApiError } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { SaveBar, useDraft } from "../../components/SaveBar";
import { Switch } from "../../components/Switch";
import { useUndo } from "../../components/UndoToast";
import { errorText, fieldErrorText } from "../../app/errorText";
import { changedAgentFields, DRAFT_LABELS, draftOf } from "./agentDraft";
import { useAgentName } from "./agentName";
import { PermissionsFields } from "./PermissionsFields";
import { PromptPreviewDialog } from "./PromptPreviewDialog";
import { McpServerToggles } from "./McpServerToggles";
import { defaultModelQuery } from "../runs/queries";
import { agentsQuery, catalogKeys, enabledModelsQuery, mcpServersQuery, skillsQuery, toolsQuery } from "./queries";
import { DelegatePicker } from "./DelegatePicker";
import { OffBadge, SkillToggles } from "./SkillToggles";
import { ToolPicker } from "./ToolPicker";
import { CopyId } from "../../components/CopyId";

interface AgentEditorProps {
  /** The agent to edit; absent for a new one. */
  agent?: Agent;
  onSaved(agent: Agent): void;
  onDeleted(): void;
  /** Undo of a delete: show the agent again. */
  onRestored?(id: string): void;
}

const FIELDS = ["name", "description", "systemPrompt", "modelId", "tools", "skills", "mcpServers", "delegates"];

export function AgentEditor({ agent, onSaved, onDeleted, onRestored }: AgentEditorProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const models = useQuery(enabledModelsQuery).data ?? [];
  const defaultId = useQuery(defaultModelQuery).data ?? null;
  const defaultLabel = defaultId ? (models.find((m) => m.id === defaultId)?.label ?? defaultId) : null;
  const turnOn = useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api.setSkillActive(id, true),
    onSettled: () => void client.invalidateQueries({ queryKey: catalogKeys.skills }),
  });
  const skills = useQuery(skillsQuery).data ?? [];
  const tools = useQuery(toolsQuery).data ?? [];
  const mcpServers = useQuery(mcpServersQuery).data ?? [];
  const others = (useQuery(agentsQuery).data ?? []).filter((a) => a.id !== agent?.id);
  const shownName = useAgentName();

  const form = useDraft(draftOf(agent), agent?.updatedAt, changedAgentFields);
  const { draft, set } = form;
  const { name, description, systemPrompt, modelId } = draft;
  const changed = changedAgentFields(form.saved, draft).map((key) => t(DRAFT_LABELS[key]));
  const [previewing, setPreviewing] = useState(false);

  const refresh = () => {
    void client.invalidateQueries({ queryKey: catalogKeys.agents });
    void client.invalidateQueries({ queryKey: catalogKeys.skills });
  };

  const save = useMutation<Agent, ApiError>({
    mutationFn: () => {
      const fields = { ...draft, modelId: modelId || null };
      return agent ? api.updateAgent(agent.id, { ...fields, clearModel: !modelId }) : api.createAgent(fields);
    },
    onSuccess: (agentNow) => {
      // What the backend kept (trimmed, deduplicated) is the new clean state.
      form.commit(draftOf(agentNow), agentNow.updatedAt);
      refresh();
      onSaved(agentNow);
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
  const undo = useUndo();
  // Hidden at once; really deleted when the Undo toast runs out.
  const remove = (gone: Agent) => {
    undo.schedule({
      key: `agent:${gone.id}`,
      label: t("forms.deleted", { name: shownName(gone) }),
      commit: async () => {
        await api.deleteAgent(gone.id);
        await client.invalidateQueries({ queryKey: catalogKeys.agents });
        await client.invalidateQueries({ queryKey: catalogKeys.skills });
      },
      onUndo: () => onRestored?.(gone.id),
    });
    onDeleted();
  };

  const problems = save.error?.fieldProblems() ?? {};
  const generalError =
    (save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null) ??
    (toggle.error ? errorText(t, toggle.error) : null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form className="card editor" onSubmit={submit} noValidate data-testid="agent-editor">
      <header className="editor-head">
        <div>
          <h3>{agent ? shownName(agent) : t("agents.newTitle")}</h3>
          {agent && (
            <p className="muted small editor-meta">
              <CopyId id={agent.id} testId="agent-copy-id" />
              {agent.persona && <span className="badge badge-accent">{t("agents.specialist")}</span>}
              {!agent.enabled && <OffBadge kind="agent" />}
            </p>
          )}
        </div>
        {agent && (
          <Switch
            checked={agent.enabled}
            disabled={toggle.isPending}
            label={t("agents.toggle", { name: shownName(agent) })}
            testId="agent-enabled"
            onChange={(enabled) => toggle.mutate(enabled)}
          />
        )}
      </header>
      {generalError && <Banner tone="danger">{generalError}</Banner>}
      <div className="form-grid">
        <Field id="agent-name" label={t("agents.fields.name")} error={fieldErrorText(t, problems.name)}
          hint={agent ? t("agents.idStays", { id: agent.id }) : t("agents.idFromName")}>
          <input id="agent-name" className="input" value={name} onChange={(e) => set("name")(e.target.value)} aria-invalid={Boolean(problems.name)} />
        </Field>
        <Field id="agent-model" label={t("agents.fields.model")} error={fieldErrorText(t, problems.modelId)}>
          <select id="agent-model" className="input" value={modelId} onChange={(e) => set("modelId")(e.target.value)}>
            <option value="">{defaultLabel ? t("agents.defaultModel", { model: defaultLabel }) : t("agents.noModel")}</option>
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
        <input id="agent-description" className="input" value={description} onChange={(e) => set("description")(e.target.value)} />
      </Field>
      <Field id="agent-prompt" label={t("agents.fields.systemPrompt")} error={fieldErrorText(t, problems.systemPrompt)}>
        <textarea id="agent-prompt" className="input textarea" rows={5} value={systemPrompt} onChange={(e) => set("systemPrompt")(e.target.value)} />
      </Field>
      <Field id="agent-tools" label={t("agents.fields.tools")} error={fieldErrorText(t, problems.tools, save.error)}>
        <ToolPicker inputId="agent-tools" value={draft.tools} onChange={set("tools")} tools={tools} invalid={Boolean(problems.tools)} />
      </Field>
      <fieldset className="field skills-picker">
        <legend className="field-label">{t("agents.fields.skills")}</legend>
        {skills.length === 0 ? (
          <p className="field-hint">{t("agents.noSkills")}</p>
        ) : (
          <SkillToggles skills={skills} chosen={draft.skills} onChange={set("skills")} onTurnOn={(id) => turnOn.mutate(id)} />
        )}
        {problems.skills && (
          <p className="field-error" role="alert" data-testid="error-skills">
            {fieldErrorText(t, problems.skills, save.error)}
          </p>
        )}
      </fieldset>
      {(mcpServers.length > 0 || draft.mcpServers.length > 0) && (
        <fieldset className="field skills-picker" data-testid="agent-mcp-servers">
          <legend className="field-label">{t("mcp.agent.field")}</legend>
          <p className="field-hint">{t("mcp.agent.hint")}</p>
          <McpServerToggles servers={mcpServers} chosen={draft.mcpServers} onChange={set("mcpServers")} />
          {problems.mcpServers && (
            <p className="field-error" role="alert" data-testid="error-mcpServers">
              {fieldErrorText(t, problems.mcpServers, save.error)}
            </p>
          )}
        </fieldset>
      )}
      {(draft.tools.includes("delegate_task") || draft.delegates.length > 0) && (
        <DelegatePicker
          agents={others}
          chosen={draft.delegates}
          onChange={set("delegates")}
          error={problems.delegates ? fieldErrorText(t, problems.delegates, save.error) : null}
        />
      )}
      <PermissionsFields value={draft.permissions} onChange={set("permissions")} />
      {agent && (
        <div className="editor-actions">
          {!agent.persona && (
            <Button variant="ghost" icon={<Trash2 size={15} />} onClick={() => remove(agent)} data-testid="delete-agent">
              {t("common.delete")}
            </Button>
          )}
          <Button variant="ghost" icon={<FileText size={15} />} onClick={() => setPreviewing(true)}>
            {t("agents.previewPrompt")}
          </Button>
        </div>
      )}
      <SaveBar
        changes={changed}
        onDiscard={form.discard}
        busy={save.isPending}
        saveLabel={agent ? t("common.save") : t("agents.create")}
        saveTestId="save-agent"
        isNew={!agent}
        subject={agent ? shownName(agent) : t("agents.newTitle")}
      />
      {previewing && agent && <PromptPreviewDialog agent={agent} onClose={() => setPreviewing(false)} />}
    </form>
  );
}
