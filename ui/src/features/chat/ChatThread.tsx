// One conversation: its history, the agent's answer streaming in as it is
// written, the composer, and — when the last run was cut off (the app was
// closed or killed) — an offer to resume it from its checkpoint (H42).
// Images can be attached (the button opens the native dialog; image files
// can be dropped on the composer). The header chooses the model this
// conversation answers with and exports it as Markdown; a branch says
// which conversation it came from. Editing a message or asking again forks
// the conversation before it and sends there (`ChatMessageView`).

import { useEffect, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Archive, FileDown, GitBranch, ImagePlus, Pencil, RotateCcw, Send, Square, Trash2, X } from "lucide-react";

import { desktopApi, runtimeApi, toApiError, type ApiError, type ChatMessage, type Conversation } from "../../api";
import { RemedyAction } from "../../app/RemedyAction";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Spinner } from "../../components/Spinner";
import { historyQuery, runtimeKeys } from "../runs/queries";
import { ToolEntryView } from "../runs/ToolEntry";
import { useWatchRunView } from "../runs/watched";
import { canSend } from "./attachments";
import { AttachmentStrip, useAttachments } from "./ChatImages";
import { ChatMessageView } from "./ChatMessageView";
import { ConversationModel } from "./ConversationModel";
import type { ChatSession } from "./useChat";

interface ChatThreadProps {
  conversation: Conversation;
  names: Record<string, string>;
  /** The chat's run (held by the view, so a branch's answer outlives this thread). */
  chat: ChatSession;
  /** The title of the conversation this one branched off, when it is listed. */
  forkedFromTitle: string | null;
  /** Opens another conversation (a new branch, the original). */
  onOpen(id: string): void;
  onGone(): void;
}

/** The person's message an answer replied to: the last one before it. */
function questionOf(messages: ChatMessage[], index: number): ChatMessage | undefined {
  return messages.slice(0, index).findLast((m) => m.role === "user");
}

export function ChatThread({ conversation, names, chat, forkedFromTitle, onOpen, onGone }: ChatThreadProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const history = useQuery(historyQuery(conversation.id));
  const resumeOffer = useQuery({
    queryKey: [...runtimeKeys.conversations, "resume", conversation.id],
    queryFn: () => runtimeApi.conversationResume(conversation.id),
  });
  const mine = chat.conversationId === conversation.id;
  const run = chat.run;
  const view = mine ? run.view : null;
  const [text, setText] = useState("");
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
  const answered = view?.runId != null && messages.some((m) => m.runId === view.runId && m.role === "assistant");
  const streamed = view?.members.some((m) => m.entries.length > 0) ?? false;
  const showStream = view !== null && !answered && (view.phase === "running" || (view.phase !== "idle" && streamed));
  // The message just sent shows at once, until the history has it.
  const sending = mine ? chat.sending : null;
  const showSending = sending !== null && messages.length <= sending.before;
  const failure = mine ? (run.refusal ?? (run.view.phase === "failed" ? toApiError(run.view.error) : null)) : null;

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [messages.length, view, sending]);

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const message = text.trim();
    if (!canSend(attachments.list, message) || running) return;
    const images = attachments.ids;
    const kept = attachments.list;
    setText("");
    attachments.clear();
    void chat.send(conversation.id, message, images, messages.length).then((started) => {
      // A refused message (a model without images) keeps its images and
      // text in the composer, so nothing the person chose is lost.
      if (started === null && kept.length > 0) {
        setText(message);
        attachments.restore(kept);
      }
    });
  };

  // Editing or asking again: a new branch before that message, sent there.
  const branch = useMutation<Conversation, ApiError, { at: ChatMessage; text: string }>({
    mutationFn: ({ at }) => runtimeApi.forkConversation(conversation.id, at.id),
    onSuccess: (fork, { at, text: resent }) => {
      void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
      onOpen(fork.id);
      const images = at.images.flatMap((i) => (i.artifactId ? [i.artifactId] : []));
      void chat.send(fork.id, resent, images, fork.messageCount);
    },
  });
  const lastQuestion = messages.findLast((m) => m.role === "user");

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
  const exported = useMutation<boolean, ApiError>({
    mutationFn: () => desktopApi.exportConversationToFile(conversation.id, t("chat.export.title")),
  });
  const actionError = rename.error ?? close.error ?? remove.error ?? discard.error ?? branch.error ?? exported.error;
  const offer = resumeOffer.data;
  const title = conversation.title ?? t("chat.untitled");

  return (
    <section className="card chat" data-testid="chat-thread">
      <header className="chat-head">
        {renaming === null ? (
          <div className="chat-title">
            <h3>{title}</h3>
            <p className="muted small chat-meta">
              <span>{t("chat.with", { agent: agentLabel })}</span>
              <ConversationModel conversation={conversation} />
              {conversation.forkedFrom && (
                <button type="button" className="link chat-branch" onClick={() => onOpen(conversation.forkedFrom ?? "")} data-testid="chat-forked-from">
                  <GitBranch size={12} aria-hidden="true" />
                  {t("chat.branch.from", { title: forkedFromTitle ?? t("chat.branch.original") })}
                </button>
              )}
            </p>
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
        <IconButton
          label={exported.data ? t("chat.export.done") : t("chat.export.action")}
          onClick={() => exported.mutate()}
          disabled={messages.length === 0 || exported.isPending}
          data-testid="export-conversation"
        >
          <FileDown size={15} />
        </IconButton>
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
            <Button size="sm" variant="primary" icon={<RotateCcw size={14} />} onClick={() => void chat.resume(conversation.id, offer.run.id)} data-testid="resume-run">
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
        {messages.map((m, index) => {
          const question = m.role === "assistant" ? questionOf(messages, index) : undefined;
          return (
            <ChatMessageView
              key={m.id}
              message={m}
              who={m.agentId ? names[m.agentId] ?? m.agentId : agentLabel}
              title={title}
              onEdit={m.role === "user" && !running ? (edited) => branch.mutate({ at: m, text: edited }) : undefined}
              onRetry={question && !running ? () => branch.mutate({ at: question, text: question.content }) : undefined}
            />
          );
        })}
        {showSending && sending && (
          <div className="message message-user pending">
            {sending.images > 0 && <p className="small muted">{t("chat.images.attached", { count: sending.images })}</p>}
            {sending.text && <p>{sending.text}</p>}
          </div>
        )}
        {showStream && view && (
          <div className="message message-assistant streaming" data-testid="streaming-answer">
            <span className="message-who">{agentLabel}</span>
            {view.members.flatMap((member) =>
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
            {running && view.members.length === 0 && <Spinner size={14} />}
            {view.phase === "cancelled" && <p className="muted small">{t("chat.stopped")}</p>}
          </div>
        )}
        {failure && (
          <Banner
            tone="danger"
            testId="chat-error"
            action={
              <RemedyAction
                error={failure}
                onRetry={lastQuestion && !running ? () => branch.mutate({ at: lastQuestion, text: lastQuestion.content }) : undefined}
              />
            }
          >
            {errorText(t, failure)}
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
        {running && mine ? (
          <Button variant="secondary" icon={<Square size={14} />} onClick={() => void run.cancel()} data-testid="stop-chat">
            {t("chat.stop")}
          </Button>
        ) : (
          <Button variant="primary" type="submit" icon={<Send size={14} />} disabled={running || !canSend(attachments.list, text)} data-testid="send-chat">
            {t("chat.send")}
          </Button>
        )}
      </form>
    </section>
  );
}
