// Results lead somewhere (issue 37, item 3 / review 10): under a finished
// run's result — a swarm's, an agent's, one in the run's detail — Copy ·
// Export · Send to canvas (as an item) · Continue in chat.

import { useState } from "react";
import { createPortal } from "react-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, Copy, FileDown, LayoutPanelLeft, MessageSquare } from "lucide-react";

import { canvasApi, desktopApi, runtimeApi, type ApiError, type Conversation } from "../../api";
import { errorText } from "../../app/errorText";
import { useRoute } from "../../app/route";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { canvasKeys, canvasesQuery } from "../canvas/queries";
import { runtimeKeys } from "./queries";

export function ResultActions({ runId, output, title }: { runId: string; output: string; title: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [, navigate] = useRoute();
  const [copied, setCopied] = useState(false);
  const [sending, setSending] = useState(false);
  const exported = useMutation<boolean, ApiError>({ mutationFn: () => desktopApi.exportRunToFile(runId, t("results.exportTitle")) });
  const chat = useMutation<Conversation, ApiError>({
    mutationFn: () => runtimeApi.continueRunInChat(runId),
    onSuccess: (conversation) => {
      void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
      navigate("chat", encodeURIComponent(conversation.id));
    },
  });
  const failure = exported.error ?? chat.error;
  return (
    <div className="result-actions" data-testid="result-actions">
      <Button
        size="sm"
        icon={copied ? <Check size={14} /> : <Copy size={14} />}
        onClick={() => void navigator.clipboard?.writeText(output).then(() => setCopied(true))}
        data-testid="result-copy"
      >
        {copied ? t("results.copied") : t("results.copy")}
      </Button>
      <Button size="sm" icon={<FileDown size={14} />} busy={exported.isPending} onClick={() => exported.mutate()} data-testid="result-export">
        {exported.data ? t("results.exported") : t("results.export")}
      </Button>
      <Button size="sm" icon={<LayoutPanelLeft size={14} />} onClick={() => setSending(true)} data-testid="result-to-canvas">
        {t("results.toCanvas")}
      </Button>
      <Button size="sm" icon={<MessageSquare size={14} />} busy={chat.isPending} onClick={() => chat.mutate()} data-testid="result-to-chat">
        {t("results.toChat")}
      </Button>
      {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
      {sending &&
        createPortal(
          <SendToCanvas
            title={title}
            output={output}
            onClose={() => setSending(false)}
            onSent={(canvasId) => {
              setSending(false);
              void client.invalidateQueries({ queryKey: canvasKeys.all });
              navigate("canvas", canvasId);
            }}
          />,
          document.body,
        )}
    </div>
  );
}

/** Picks the canvas a result (or a chat answer) goes to as an item (or a new one). */
export function SendToCanvas({ title, output, onClose, onSent }: { title: string; output: string; onClose(): void; onSent(canvasId: string): void }) {
  const { t } = useTranslation();
  const canvases = useQuery(canvasesQuery).data ?? [];
  const [chosen, setChosen] = useState<string | null>(null);
  const target = chosen ?? canvases[0]?.id ?? "";
  const send = useMutation<string, ApiError>({
    mutationFn: async () => {
      const canvasId = target || (await canvasApi.create(title)).id;
      await canvasApi.addItem(canvasId, { sourceKind: "custom", title, snippet: output });
      return canvasId;
    },
    onSuccess: onSent,
  });
  return (
    <Dialog title={t("results.toCanvasTitle")} onClose={onClose} closeLabel={t("common.close")} testId="send-to-canvas">
      <div className="form">
        <Field id="send-canvas" label={t("results.canvas")} hint={t("results.canvasHint")}>
          <select id="send-canvas" className="input" value={target} onChange={(e) => setChosen(e.target.value)} data-testid="send-canvas">
            {canvases.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name ?? t("canvas.untitled")}
              </option>
            ))}
            <option value="">{t("results.newCanvas", { name: title })}</option>
          </select>
        </Field>
        {send.error && <Banner tone="danger">{errorText(t, send.error)}</Banner>}
        <div className="dialog-actions">
          <Button variant="ghost" onClick={onClose}>
            {t("common.cancel")}
          </Button>
          <Button variant="primary" busy={send.isPending} onClick={() => send.mutate()} data-testid="send-canvas-go">
            {t("results.send")}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
