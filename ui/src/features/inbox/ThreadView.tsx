import { useEffect, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ArrowLeft, Send } from "lucide-react";

import { inboxApi, type ApiError, type Author, type BusMessage } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Spinner } from "../../components/Spinner";
import { errorText } from "../../app/errorText";
import { authorName } from "../../app/names";
import { MessageCard } from "./MessageCard";
import { inboxKeys, threadQuery } from "./queries";

interface ThreadViewProps {
  /** Whose mail the thread is read from. */
  author: Author;
  authors: Author[];
  /** Any message of the thread. */
  messageId: string;
  /** Put the cursor in the answer box at once (the person chose Reply). */
  replying: boolean;
  onBack(): void;
}

/** A conversation as a thread (issue 15, item 4): every message of it,
 * oldest first, and — when the person is one of its two authors — an answer
 * box that replies to its latest message. Opening a thread in the person's
 * own inbox marks its mail to them read, as a mail client does. */
export function ThreadView({ author, authors, messageId, replying, onBack }: ThreadViewProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  // The message the thread is read from; another of it once that one is
  // deleted (a thread outlives any one of its messages).
  const [anchor, setAnchor] = useState(messageId);
  const thread = useQuery(threadQuery(author.id, anchor));
  const [failure, setFailure] = useState<ApiError | null>(null);
  const messages = thread.data ?? [];
  const owner = authors.find((a) => a.isOwner);
  const first = messages[0];
  const latest = messages[messages.length - 1];
  const ends = first ? [first.from, first.to] : [];
  const other = owner && ends.includes(owner.id) ? (ends.find((id) => id !== owner.id) ?? owner.id) : null;
  const otherAuthor = authors.find((a) => a.id === other);
  const name = (id: string) => {
    const found = authors.find((a) => a.id === id);
    return found ? authorName(t, found) : id;
  };

  const unreadToMe = author.isOwner ? messages.filter((m) => m.to === author.id && !m.read_at).map((m) => m.id) : [];
  const marked = useRef(false);
  useEffect(() => {
    if (marked.current || unreadToMe.length === 0) return;
    marked.current = true;
    void inboxApi
      .markRead(author.id, unreadToMe)
      .then(() => client.invalidateQueries({ queryKey: inboxKeys.messages }))
      .catch((e: ApiError) => setFailure(e));
  });

  return (
    <section className="thread-view" data-testid="thread-view">
      <div className="thread-head">
        <Button size="sm" variant="ghost" icon={<ArrowLeft size={14} />} onClick={onBack} data-testid="thread-back">
          {t("inboxThreads.back")}
        </Button>
        {first && (
          <h3 data-testid="thread-title">
            {t("inboxThreads.between", { a: name(first.from), b: name(first.to) })}
            <span className="muted small"> · {t("inboxThreads.count", { count: messages.length })}</span>
          </h3>
        )}
      </div>
      {thread.isPending && <Spinner />}
      {thread.error && <Banner tone="danger">{errorText(t, thread.error)}</Banner>}
      {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
      <ul className="bus-list thread-list" data-testid="thread-list">
        {messages.map((m) => (
          <MessageCard
            key={m.id}
            message={m}
            author={author}
            authors={authors}
            side="thread"
            onError={setFailure}
            onDeleted={() => {
              const next = messages.filter((other) => other.id !== m.id).pop();
              if (!next) onBack();
              else if (m.id === anchor) setAnchor(next.id);
            }}
          />
        ))}
      </ul>
      {latest && other && otherAuthor ? (
        <ReplyBox to={otherAuthor} replyTo={latest} focus={replying} onError={setFailure} />
      ) : (
        latest && <p className="muted small">{t("inboxThreads.notYours")}</p>
      )}
    </section>
  );
}

function ReplyBox({ to, replyTo, focus, onError }: { to: Author; replyTo: BusMessage; focus: boolean; onError(e: ApiError): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [body, setBody] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (focus) box.current?.focus();
  }, [focus]);
  const send = useMutation<BusMessage, ApiError>({
    mutationFn: () => inboxApi.send(to.id, { body, priority: "normal", reply_to: replyTo.id }),
    onSuccess: () => {
      setBody("");
      void client.invalidateQueries({ queryKey: inboxKeys.messages });
    },
    onError,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <form className="reply-box" onSubmit={submit} data-testid="reply-box">
      <label htmlFor="reply-body" className="small muted">
        {t("inboxThreads.replyTo", { name: authorName(t, to) })}
      </label>
      <textarea
        id="reply-body"
        ref={box}
        className="input textarea"
        rows={3}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        placeholder={t("inboxThreads.replyPlaceholder")}
        data-testid="reply-body"
      />
      <div className="dialog-actions">
        <Button type="submit" variant="primary" icon={<Send size={15} />} busy={send.isPending} disabled={body.trim() === ""} data-testid="reply-send">
          {t("inboxThreads.send")}
        </Button>
      </div>
    </form>
  );
}
