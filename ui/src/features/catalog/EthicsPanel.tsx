import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Pencil, Plus, Trash2 } from "lucide-react";

import { api, type ApiError, type EthicsRule } from "../../api";
import { Button, IconButton } from "../../components/Button";
import { Field } from "../../components/Field";
import { Switch } from "../../components/Switch";
import { errorText, fieldErrorText } from "../../app/errorText";
import { catalogKeys, ethicsQuery } from "./queries";

/** The code of ethics: rules injected into every agent's system prompt. */
export function EthicsPanel() {
  const { t } = useTranslation();
  const rules = useQuery(ethicsQuery);
  const [editing, setEditing] = useState<EthicsRule | "new" | null>(null);
  return (
    <div className="section">
      <div className="toolbar">
        <p className="muted">{t("ethics.subtitle")}</p>
        <Button variant="primary" icon={<Plus size={16} />} onClick={() => setEditing("new")}>
          {t("ethics.add")}
        </Button>
      </div>
      {editing === "new" && <RuleForm onDone={() => setEditing(null)} />}
      {(rules.data ?? []).length === 0 && editing !== "new" && <p className="muted">{t("ethics.empty")}</p>}
      <ol className="rule-list">
        {(rules.data ?? []).map((rule) =>
          editing !== "new" && editing?.id === rule.id ? (
            <li key={rule.id}>
              <RuleForm rule={rule} onDone={() => setEditing(null)} />
            </li>
          ) : (
            <RuleRow key={rule.id} rule={rule} onEdit={() => setEditing(rule)} />
          ),
        )}
      </ol>
    </div>
  );
}

function RuleRow({ rule, onEdit }: { rule: EthicsRule; onEdit(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const refresh = () => void client.invalidateQueries({ queryKey: catalogKeys.ethics });
  const toggle = useMutation<EthicsRule, ApiError, boolean>({ mutationFn: (a) => api.setEthicsActive(rule.id, a), onSettled: refresh });
  const remove = useMutation<null, ApiError>({ mutationFn: () => api.deleteEthics(rule.id), onSuccess: refresh });
  return (
    <li className={rule.active ? "card rule" : "card rule rule-off"}>
      <div className="rule-text">
        <strong>{rule.title}</strong>
        <p>{rule.rule}</p>
      </div>
      <IconButton label={t("common.edit")} onClick={onEdit}><Pencil size={15} /></IconButton>
      <IconButton label={t("common.delete")} tone="danger" onClick={() => remove.mutate()}><Trash2 size={15} /></IconButton>
      <Switch checked={rule.active} label={t("ethics.toggle", { name: rule.title })} onChange={(a) => toggle.mutate(a)} />
    </li>
  );
}

function RuleForm({ rule, onDone }: { rule?: EthicsRule; onDone(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [title, setTitle] = useState(rule?.title ?? "");
  const [text, setText] = useState(rule?.rule ?? "");
  const save = useMutation<EthicsRule, ApiError>({
    mutationFn: () => (rule ? api.updateEthics(rule.id, { title, rule: text }) : api.createEthics({ title, rule: text })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: catalogKeys.ethics });
      onDone();
    },
  });
  const problems = save.error?.fieldProblems() ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="card editor" onSubmit={submit} noValidate>
      <Field id="rule-title" label={t("ethics.title")} error={fieldErrorText(t, problems.title, save.error)}>
        <input id="rule-title" className="input" value={title} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      <Field id="rule-text" label={t("ethics.rule")} error={fieldErrorText(t, problems.rule, save.error) ?? (save.error && !problems.title ? errorText(t, save.error) : null)}>
        <textarea id="rule-text" className="input textarea" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      </Field>
      <footer className="editor-foot">
        <span className="spacer" />
        <Button variant="ghost" onClick={onDone}>{t("common.cancel")}</Button>
        <Button variant="primary" type="submit" busy={save.isPending}>{t("common.save")}</Button>
      </footer>
    </form>
  );
}
