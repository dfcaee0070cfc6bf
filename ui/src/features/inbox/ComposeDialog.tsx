import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Send } from "lucide-react";

import { inboxApi, type ApiError, type Author, type BusMessage, type Priority } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { errorText, fieldErrorText } from "../../app/errorText";

/** Writes a message from the person (the owner's author) to any author. */
export function ComposeDialog({ authors, to: initialTo, onClose }: { authors: Author[]; to?: string; onClose(): void }) {
  const { t } = useTranslation();
  const recipients = authors.filter((a) => !a.isOwner);
  const [to, setTo] = useState(initialTo ?? recipients[0]?.id ?? "");
  const [priority, setPriority] = useState<Priority>("normal");
  const [body, setBody] = useState("");
  const send = useMutation<BusMessage, ApiError>({
    mutationFn: () => inboxApi.send(to, { body, priority }),
    onSuccess: onClose,
  });
  const problems = send.error?.fieldProblems() ?? {};
  const general = send.error && !problems.body && !problems.priority ? errorText(t, send.error) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <Dialog title={t("inbox.compose.title")} onClose={onClose} closeLabel={t("common.close")} testId="compose-dialog" width={560}>
      <form onSubmit={submit} className="form">
        <Field id="compose-to" label={t("inbox.compose.to")}>
          <select id="compose-to" className="input" value={to} onChange={(e) => setTo(e.target.value)} data-testid="compose-to">
            {recipients.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="compose-priority" label={t("inbox.compose.priority")} hint={t("inbox.compose.priorityHint")} error={fieldErrorText(t, problems.priority, send.error)}>
          <Segmented
            label={t("inbox.compose.priority")}
            value={priority}
            onChange={(value) => setPriority(value as Priority)}
            options={[
              { value: "normal", label: t("inbox.priority.normal"), testId: "priority-normal" },
              { value: "urgent", label: t("inbox.priority.urgent"), testId: "priority-urgent" },
            ]}
          />
        </Field>
        <Field id="compose-body" label={t("inbox.compose.body")} error={fieldErrorText(t, problems.body, send.error)}>
          <textarea id="compose-body" className="input textarea" rows={7} value={body} onChange={(e) => setBody(e.target.value)} data-testid="compose-body" />
        </Field>
        {general && <Banner tone="danger">{general}</Banner>}
        <div className="dialog-actions">
          <Button onClick={onClose}>{t("common.cancel")}</Button>
          <Button type="submit" variant="primary" icon={<Send size={15} />} busy={send.isPending} disabled={!to} data-testid="compose-send">
            {t("inbox.compose.send")}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
