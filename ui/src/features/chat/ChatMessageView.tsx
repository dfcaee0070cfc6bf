// One message of a conversation, with what can be done with it (issue 37,
// chat on a par with Claude Desktop and Jan): the person's own can be
// copied or edited — the edit is sent in a new branch, the original kept —
// and an answer can be copied, asked again (also in a new branch), sent to
// a canvas or exported. An answer shows the tools its run called and its
// tokens, also when the conversation is reopened.

import { useState } from "react";
import { createPortal } from "react-dom";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, Copy, FileDown, LayoutPanelLeft, Pencil, RotateCcw } from "lucide-react";

import { desktopApi, type ApiError, type ChatMessage, type MessageTool } from "../../api";
import { useRoute } from "../../app/route";
import { Button, IconButton } from "../../components/Button";
import { Markdown } from "../../components/Markdown";
import { canvasKeys } from "../canvas/queries";
import { SendToCanvas } from "../runs/ResultActions";
import type { ToolEntry } from "../runs/runState";
import { ToolEntryView } from "../runs/ToolEntry";
import { notReported, usageText } from "../runs/tokens";
import { MessageImages } from "./ChatImages";

interface ChatMessageViewProps {
  message: ChatMessage;
  /** Who wrote an answer (the agent's name). */
  who: string;
  /** The conversation's title: what a sent answer is called on a canvas. */
  title: string;
  /** Edit and resend (a person's message), when nothing is running. */
  onEdit?(text: string): void;
  /** Ask again (an answer), when nothing is running. */
  onRetry?(): void;
}

const asEntry = (tool: MessageTool): ToolEntry => ({ kind: "tool", ...tool });

export function ChatMessageView({ message: m, who, title, onEdit, onRetry }: ChatMessageViewProps) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<string | null>(null);
  if (m.role === "user") {
    return (
      <div className="message message-user" data-testid="message-user" data-message-id={m.id}>
        <MessageImages images={m.images} />
        {editing === null ? (
          <>
            {m.content && <p>{m.content}</p>}
            <div className="message-actions">
              <CopyButton text={m.content} />
              {onEdit && (
                <IconButton label={t("chat.actions.edit")} onClick={() => setEditing(m.content)} data-testid="message-edit">
                  <Pencil size={13} />
                </IconButton>
              )}
            </div>
          </>
        ) : (
          <form
            className="message-edit"
            onSubmit={(e) => {
              e.preventDefault();
              if (!editing.trim() || !onEdit) return;
              onEdit(editing.trim());
              setEditing(null);
            }}
          >
            <textarea
              className="input textarea"
              rows={3}
              value={editing}
              autoFocus
              aria-label={t("chat.actions.edit")}
              onChange={(e) => setEditing(e.target.value)}
              data-testid="message-edit-input"
            />
            <p className="small muted">{t("chat.actions.editHint")}</p>
            <div className="button-row">
              <Button size="sm" variant="primary" type="submit" disabled={!editing.trim()} data-testid="message-edit-send">
                {t("chat.actions.editSend")}
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setEditing(null)}>
                {t("common.cancel")}
              </Button>
            </div>
          </form>
        )}
      </div>
    );
  }
  return (
    <div className="message message-assistant" data-testid="message-assistant" data-message-id={m.id}>
      <span className="message-who">{who}</span>
      {m.tools.length > 0 && (
        <div className="chat-tools" data-testid="message-tools">
          {m.tools.map((tool) => (
            <ToolEntryView key={tool.callId} entry={asEntry(tool)} agentName={who} />
          ))}
        </div>
      )}
      <Markdown source={m.content} />
      <div className="message-actions">
        <CopyButton text={m.content} />
        {onRetry && (
          <IconButton label={t("chat.actions.retry")} onClick={onRetry} data-testid="message-retry">
            <RotateCcw size={13} />
          </IconButton>
        )}
        <AnswerOut message={m} title={title} />
        {m.usage && (
          <span className="message-usage small muted" data-testid="chat-usage" title={notReported(m.usage) ? t("runs.tokens.notReportedHint") : undefined}>
            {usageText(t, m.usage)}
          </span>
        )}
      </div>
    </div>
  );
}

function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <IconButton
      label={copied ? t("results.copied") : t("results.copy")}
      onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}
      data-testid="message-copy"
    >
      {copied ? <Check size={13} /> : <Copy size={13} />}
    </IconButton>
  );
}

/** An answer out of the chat: to a canvas as an item, or to a file. */
function AnswerOut({ message, title }: { message: ChatMessage; title: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [, navigate] = useRoute();
  const [sending, setSending] = useState(false);
  const runId = message.runId;
  const exported = useMutation<boolean, ApiError, string>({ mutationFn: (id) => desktopApi.exportRunToFile(id, t("results.exportTitle")) });
  return (
    <>
      <IconButton label={t("results.toCanvas")} onClick={() => setSending(true)} data-testid="message-to-canvas">
        <LayoutPanelLeft size={13} />
      </IconButton>
      {runId && (
        <IconButton
          label={exported.data ? t("results.exported") : exported.error ? t("chat.actions.exportFailed") : t("results.export")}
          onClick={() => exported.mutate(runId)}
          data-testid="message-export"
        >
          <FileDown size={13} />
        </IconButton>
      )}
      {sending &&
        createPortal(
          <SendToCanvas
            title={title}
            output={message.content}
            onClose={() => setSending(false)}
            onSent={(canvasId) => {
              setSending(false);
              void client.invalidateQueries({ queryKey: canvasKeys.all });
              navigate("canvas", canvasId);
            }}
          />,
          document.body,
        )}
    </>
  );
}
