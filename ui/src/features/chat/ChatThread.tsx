// One conversation: its history, the agent's answer streaming in as it is
// written, the composer, and — when the last run was cut off (the app was
// closed or killed) — an offer to resume it from its checkpoint (H42).
// Images can be attached (the button opens the native dialog; image files
// can be dropped on the composer); sent messages show theirs, and the
// answer of a run says its token counts ("—" when the provider reports none).

import { useEffect, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Archive, ImagePlus, Pencil, RotateCcw, Send, Square, Trash2, X } from "lucide-react";

import { runtimeApi, toApiError, type ApiError, type Conversation } from "../../api";
import { RemedyAction } from "../../app/RemedyAction";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Markdown } from "../../components/Markdown";
import { Spinner } from "../../components/Spinner";
import { historyQuery, runtimeKeys } from "../runs/queries";
import type { ToolEntry } from "../runs/runState";
import { ToolEntryView } from "../runs/ToolEntry";
import { useRun, type RunStarter } from "../runs/useRun";
import { useWatchRunView } from "../runs/watched";
import { notReported, usageText } from "../runs/tokens";
import { canSend } from "./attachments";
import { AttachmentStrip, MessageImages, useAttachments } from "./ChatImages";

interface ChatThreadProps {
  conversation: Conversation;
  names: Record<string, string>;
  onGone(): void;
}

export function ChatThread({ conversation, names, onGone }: ChatThreadProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const history = useQuery(historyQuery(conversation.id));
  const resumeOffer = useQuery({
    queryKey: [...runtimeKeys.conversations, "resume", conversation.id],
    queryFn: () => runtimeApi.conversationResume(conversation.id),
  });
  const run = useRun();
  const [text, setText] = useState("");
  const [sending, setSending] = useState<{ text: string; before: number; images: number } | null>(null);
  const attachments = useAttachments();
  const [dropping, setDropping] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const bottom = useRef<HTMLDivElement>(null);
  const agentLabel = conversation.agentId ? names[conversation.agentId] ?? conversation.agentId : "—";
  const running = run.view.phase === "running";
  useWatchRunView(run.view);

  const refresh = () => {
    void client.invalidateQueries({ queryKey: runtimeKeys.history(conversation.id) });
    void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
  };
  const messages = history.data ?? [];
  // The streamed answer gives way to the stored one once it is in the history.
  const answered = run.view.runId !== null && messages.some((m) => m.runId === run.view.runId && m.role === "assistant");
  const streamed = run.view.members.some((m) => m.entries.length > 0);
  const showStream = !answered && (running || (run.view.phase !== "idle" && streamed));
  // The tools the last run called stay listed above its stored answer.
  const toolsOfRun: ToolEntry[] = run.view.members.flatMap((m) => m.entries.filter((e): e is ToolEntry => e.kind === "tool"));
  const answerOfRun = messages.findLast((m) => m.runId === run.view.runId && m.role === "assistant")?.id;
  // The message just sent shows at once, until the history has it.
  const showSending = sending !== null && messages.length <= sending.before;

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [messages.length, run.view, sending]);

  const follow = async (starter: RunStarter) => {
    const started = await run.start((onEvent) =>
      starter((event) => {
        if (event.type === "started") refresh();
        onEvent(event);
      }),
    );
    setSending(null);
    refresh();
    void resumeOffer.refetch();
    return started;
  };

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const message = text.trim();
    if (!canSend(attachments.list, message) || running) return;
    const images = attachments.ids;
    const kept = attachments.list;
    setText("");
    attachments.clear();
    setSending({ text: message, before: messages.length, images: images.length });
    void follow((onEvent) => runtimeApi.sendChatMessage(conversation.id, message, images, onEvent)).then((started) => {
      // A refused message (a model without images) keeps its images and
      // text in the composer, so nothing the person chose is lost.
      if (started === null && kept.length > 0) {
        setText(message);
        attachments.restore(kept);
      }
    });
  };
  const resume = (runId: string) => void follow((onEvent) => runtimeApi.resumeRun(runId, onEvent));

  const discard = useMutation<unknown, ApiError, string>({
    mutationFn: (runId) => runtimeApi.discardRun(runId),
    onSuccess: () => void resumeOffer.refetch(),
  });
  const rename = useMutation<Conversation, ApiError, string>({
    mutationFn: (title) => runtimeApi.renameConversation(conversation.id, title),
    onSuccess: () => {
      setRenaming(null);
      refresh();
    },
  });
  const close = useMutation<Conversation, ApiError>({
    mutationFn: () => runtimeApi.closeConversation(conversation.id),
    onSuccess: () => {
      refresh();
      onGone();
    },
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => runtimeApi.deleteConversation(conversation.id),
    onSuccess: () => {
      refresh();
      onGone();
    },
  });
  const actionError = rename.error ?? close.error ?? remove.error ?? discard.error;
  const offer = resumeOffer.data;

  return (
    <section className="card chat" data-testid="chat-thread">
      <header className="chat-head">
        {renaming === null ? (
          <div className="chat-title">
            <h3>{conversation.title ?? t("chat.untitled")}</h3>
            <p className="muted small">{t("chat.with", { agent: agentLabel })}</p>
          </div>
        ) : (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate(renaming);
            }}
          >
            <input className="input input-sm" value={renaming} autoFocus aria-label={t("chat.rename")} onChange={(e) => setRenaming(e.target.value)} />
            <Button size="sm" variant="primary" type="submit" busy={rename.isPending}>
              {t("common.save")}
            </Button>
            <IconButton label={t("common.cancel")} onClick={() => setRenaming(null)}>
              <X size={14} />
            </IconButton>
          </form>
        )}
        <span className="spacer" />
        <IconButton label={t("chat.rename")} onClick={() => setRenaming(conversation.title ?? "")}>
          <Pencil size={15} />
        </IconButton>
        <IconButton label={t("chat.close")} onClick={() => close.mutate()} data-testid="close-conversation">
          <Archive size={15} />
        </IconButton>
        <IconButton label={t("common.delete")} tone="danger" onClick={() => remove.mutate()} data-testid="delete-conversation">
          <Trash2 size={15} />
        </IconButton>
      </header>
      {actionError && <Banner tone="danger">{errorText(t, actionError)}</Banner>}
      {offer && !running && (
        <Banner tone="warning" testId="resume-offer">
          <p>{t("chat.resume.body", { count: offer.checkpointMessages })}</p>
          <div className="button-row">
            <Button size="sm" variant="primary" icon={<RotateCcw size={14} />} onClick={() => resume(offer.run.id)} data-testid="resume-run">
              {t("chat.resume.resume")}
            </Button>
            <Button size="sm" variant="ghost" busy={discard.isPending} onClick={() => discard.mutate(offer.run.id)}>
              {t("chat.resume.discard")}
            </Button>
          </div>
        </Banner>
      )}
      <div className="messages" data-testid="messages">
        {history.isPending && <Spinner />}
        {messages.length === 0 && !sending && !history.isPending && <p className="muted chat-hint">{t("chat.hint", { agent: agentLabel })}</p>}
        {messages.map((m) => (
          <div key={m.id} className={`message message-${m.role}`} data-testid={`message-${m.role}`}>
            {m.role === "assistant" && <span className="message-who">{m.agentId ? names[m.agentId] ?? m.agentId : agentLabel}</span>}
            {m.id === answerOfRun && toolsOfRun.length > 0 && (
              <div className="chat-tools">
                {toolsOfRun.map((entry) => (
                  <ToolEntryView key={entry.callId} entry={entry} agentName={agentLabel} />
                ))}
              </div>
            )}
            {m.role === "user" && <MessageImages images={m.images} />}
            {m.role === "assistant" ? <Markdown source={m.content} /> : m.content && <p>{m.content}</p>}
            {m.id === answerOfRun && run.view.usage && (
              <span
                className="message-usage small muted"
                data-testid="chat-usage"
                title={notReported(run.view.usage) ? t("runs.tokens.notReportedHint") : undefined}
              >
                {usageText(t, run.view.usage)}
              </span>
            )}
          </div>
        ))}
        {showSending && sending && (
          <div className="message message-user pending">
            {sending.images > 0 && <p className="small muted">{t("chat.images.attached", { count: sending.images })}</p>}
            {sending.text && <p>{sending.text}</p>}
          </div>
        )}
        {showStream && (
          <div className="message message-assistant streaming" data-testid="streaming-answer">
            <span className="message-who">{agentLabel}</span>
            {run.view.members.flatMap((member) =>
              member.entries.map((entry, i) =>
                entry.kind === "text" ? (
                  <p key={`${member.agentId}-${i}`} className={running ? "live" : ""}>{entry.text}</p>
                ) : (
                  <div key={`${member.agentId}-${i}`} className="chat-tools">
                    <ToolEntryView entry={entry} agentName={agentLabel} />
                  </div>
                ),
              ),
            )}
            {running && run.view.members.length === 0 && <Spinner size={14} />}
            {run.view.phase === "cancelled" && <p className="muted small">{t("chat.stopped")}</p>}
          </div>
        )}
        {(run.refusal ?? (run.view.phase === "failed" ? run.view.error : null)) && (
          <Banner tone="danger" testId="chat-error" action={<RemedyAction error={run.refusal ?? toApiError(run.view.error)} />}>
            {errorText(t, run.refusal ?? toApiError(run.view.error))}
          </Banner>
        )}
        <div ref={bottom} />
      </div>
      <form
        className={dropping ? "composer drop-over" : "composer"}
        onSubmit={send}
        onDragOver={(e) => {
          if (![...e.dataTransfer.types].includes("Files")) return;
          e.preventDefault();
          setDropping(true);
        }}
        onDragLeave={() => setDropping(false)}
        onDrop={(e) => {
          const files = [...e.dataTransfer.files];
          setDropping(false);
          if (files.length === 0) return;
          e.preventDefault();
          attachments.addFiles(files);
        }}
        data-testid="chat-composer"
      >
        <AttachmentStrip list={attachments.list} onRemove={attachments.remove} />
        <IconButton
          label={t("chat.images.attach")}
          className="composer-attach"
          disabled={attachments.picking}
          onClick={() => void attachments.pick()}
          data-testid="attach-images"
        >
          <ImagePlus size={17} />
        </IconButton>
        <textarea
          className="input textarea"
          rows={2}
          value={text}
          placeholder={dropping ? t("chat.images.drop") : t("chat.placeholder", { agent: agentLabel })}
          aria-label={t("chat.message")}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) send(e);
          }}
          data-testid="chat-input"
        />
        {running ? (
          <Button variant="secondary" icon={<Square size={14} />} onClick={() => void run.cancel()} data-testid="stop-chat">
            {t("chat.stop")}
          </Button>
        ) : (
          <Button variant="primary" type="submit" icon={<Send size={14} />} disabled={!canSend(attachments.list, text)} data-testid="send-chat">
            {t("chat.send")}
          </Button>
        )}
      </form>
    </section>
  );
}
