import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Trash2 } from "lucide-react";

import { api, type ApiError, type Memory } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { errorText, fieldErrorText } from "../../app/errorText";
import { catalogKeys } from "../catalog/queries";

/** Writes a memory (a title that exists is replaced) or deletes one. */
export function MemoryDialog({ memory, onClose }: { memory?: Memory; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [title, setTitle] = useState(memory?.title ?? "");
  const [content, setContent] = useState(memory?.content ?? "");
  const refresh = () => void client.invalidateQueries({ queryKey: catalogKeys.memories });
  const save = useMutation<Memory, ApiError>({
    mutationFn: () => api.writeMemory(title, content),
    onSuccess: () => {
      refresh();
      onClose();
    },
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => api.deleteMemory(memory?.title ?? ""),
    onSuccess: () => {
      refresh();
      onClose();
    },
  });
  const problems = save.error?.fieldProblems() ?? {};
  const general = (save.error && !problems.title && !problems.content ? errorText(t, save.error) : null) ?? (remove.error ? errorText(t, remove.error) : null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Dialog
      title={memory ? memory.title : t("memory.new")}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="memory-dialog"
      width={600}
      footer={
        <>
          {memory && (
            <Button variant="ghost" icon={<Trash2 size={15} />} busy={remove.isPending} onClick={() => remove.mutate()}>
              {t("common.delete")}
            </Button>
          )}
          <span className="spacer" />
          <Button variant="ghost" onClick={onClose}>{t("common.cancel")}</Button>
          <Button variant="primary" type="submit" form="memory-form" busy={save.isPending} data-testid="save-memory">
            {t("common.save")}
          </Button>
        </>
      }
    >
      <form id="memory-form" className="form" onSubmit={submit} noValidate>
        {general && <Banner tone="danger">{general}</Banner>}
        <Field id="memory-title" label={t("memory.fields.title")} error={fieldErrorText(t, problems.title, save.error)} hint={memory ? t("memory.titleFixed") : undefined}>
          <input id="memory-title" className="input" value={title} disabled={Boolean(memory)} onChange={(e) => setTitle(e.target.value)} />
        </Field>
        <Field id="memory-content" label={t("memory.fields.content")} error={fieldErrorText(t, problems.content, save.error)}>
          <textarea id="memory-content" className="input textarea" rows={8} value={content} onChange={(e) => setContent(e.target.value)} />
        </Field>
      </form>
    </Dialog>
  );
}
