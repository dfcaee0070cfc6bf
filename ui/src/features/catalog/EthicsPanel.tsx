// The code of ethics: rules injected into every agent's system prompt —
// filterable, each switchable, edited in place with the Save bar.

import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Pencil, Plus, Trash2 } from "lucide-react";

import { api, type ApiError, type EthicsRule } from "../../api";
import { Button, IconButton } from "../../components/Button";
import { Field } from "../../components/Field";
import { filterList, ListFilter } from "../../components/ListFilter";
import { changedKeys, guardLeave, SaveBar, useDraft } from "../../components/SaveBar";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { useUndo } from "../../components/UndoToast";
import { Switch } from "../../components/Switch";
import { errorText, fieldErrorText } from "../../app/errorText";
import { catalogKeys, ethicsQuery } from "./queries";

/** The code of ethics: rules injected into every agent's system prompt. */
export function EthicsPanel() {
  const { t } = useTranslation();
  const rules = useQuery(ethicsQuery);
  const [editing, setEditing] = useState<EthicsRule | "new" | null>(null);
  const [filter, setFilter] = useState("");
  const undo = useUndo();
  const all = (rules.data ?? []).filter((r) => !undo.isHidden(`rule:${r.id}`));
  const shown = filterList(all, filter, (r) => [r.title, r.rule]);
  const edit = (next: EthicsRule | "new" | null) => guardLeave(() => setEditing(next));
  useShortcutAction("new", () => edit("new"), "catalog/ethics");
  return (
    <div className="section">
      <div className="toolbar">
        <p className="muted">{t("ethics.subtitle")}</p>
        <Button variant="primary" icon={<Plus size={16} />} onClick={() => edit("new")} title={shortcutTitle(t("ethics.add"), "new")} data-testid="new-rule">
          {t("ethics.add")}
        </Button>
      </div>
      {all.length > 3 && <ListFilter className="rules-filter" value={filter} onChange={setFilter} label={t("forms.filter.rules")} shown={shown.length} total={all.length} testId="rules-filter" />}
      {editing === "new" && <RuleForm onDone={() => setEditing(null)} />}
      {all.length === 0 && editing !== "new" && <p className="muted">{t("ethics.empty")}</p>}
      {filter && shown.length === 0 && <p className="muted">{t("forms.filter.none")}</p>}
      <ol className="rule-list">
        {shown.map((rule) =>
          editing !== "new" && editing?.id === rule.id ? (
            <li key={rule.id}>
              <RuleForm rule={rule} onDone={() => setEditing(null)} />
            </li>
          ) : (
            <RuleRow key={rule.id} rule={rule} onEdit={() => edit(rule)} />
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
  const undo = useUndo();
  // Hidden at once; really deleted when the Undo toast runs out.
  const remove = () =>
    undo.schedule({
      key: `rule:${rule.id}`,
      label: t("forms.deleted", { name: rule.title }),
      commit: async () => {
        await api.deleteEthics(rule.id);
        await client.invalidateQueries({ queryKey: catalogKeys.ethics });
      },
    });
  return (
    <li className={rule.active ? "card rule" : "card rule rule-off"}>
      <div className="rule-text">
        <strong>{rule.title}</strong>
        <p>{rule.rule}</p>
      </div>
      <IconButton label={t("common.edit")} onClick={onEdit}><Pencil size={15} /></IconButton>
      <IconButton label={t("common.delete")} tone="danger" onClick={remove} data-testid={`delete-rule-${rule.id}`}><Trash2 size={15} /></IconButton>
      <Switch checked={rule.active} label={t("ethics.toggle", { name: rule.title })} onChange={(a) => toggle.mutate(a)} />
    </li>
  );
}

function RuleForm({ rule, onDone }: { rule?: EthicsRule; onDone(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const form = useDraft({ title: rule?.title ?? "", rule: rule?.rule ?? "" }, rule?.updatedAt);
  const { title, rule: text } = form.draft;
  const changes = changedKeys(form.saved, form.draft).map((key) => t(key === "title" ? "ethics.title" : "ethics.rule"));
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
        <input id="rule-title" className="input" value={title} onChange={(e) => form.set("title")(e.target.value)} />
      </Field>
      <Field id="rule-text" label={t("ethics.rule")} error={fieldErrorText(t, problems.rule, save.error) ?? (save.error && !problems.title ? errorText(t, save.error) : null)}>
        <textarea id="rule-text" className="input textarea" rows={3} value={text} onChange={(e) => form.set("rule")(e.target.value)} />
      </Field>
      <SaveBar
        changes={changes}
        onDiscard={form.discard}
        onCancel={onDone}
        busy={save.isPending}
        saveLabel={rule ? t("common.save") : t("ethics.add")}
        saveTestId="save-rule"
        isNew={!rule}
        subject={rule?.title ?? t("ethics.add")}
      />
    </form>
  );
}
