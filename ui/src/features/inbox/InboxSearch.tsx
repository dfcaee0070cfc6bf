import { useState } from "react";
import type { FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Search, X } from "lucide-react";

import type { ApiError, Author } from "../../api";
import { Banner } from "../../components/Banner";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { errorText } from "../../app/errorText";
import { authorName } from "../../app/names";
import { MessageCard } from "./MessageCard";
import { searchQuery } from "./queries";

/** The search box over one author's mail (sent and received). */
export function InboxSearchBox({ author, value, onSearch }: { author: Author; value: string; onSearch(query: string): void }) {
  const { t } = useTranslation();
  const [text, setText] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim());
  };
  const label = author.isOwner ? t("inboxThreads.search.mine") : t("inboxThreads.search.label", { name: authorName(t, author) });
  return (
    <form className="list-filter inbox-search" role="search" onSubmit={submit}>
      <Search size={14} aria-hidden="true" className="list-filter-icon" />
      <input
        type="search"
        className="input input-sm list-filter-input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={label}
        aria-label={label}
        maxLength={1000}
        data-testid="inbox-search"
      />
      {value !== "" && (
        <button
          type="button"
          className="icon-btn list-filter-clear"
          aria-label={t("inboxThreads.search.clear")}
          title={t("inboxThreads.search.clear")}
          onClick={() => {
            setText("");
            onSearch("");
          }}
          data-testid="inbox-search-clear"
        >
          <X size={13} aria-hidden="true" />
        </button>
      )}
    </form>
  );
}

/** What a search found in `author`'s mail, best match first (nothing is
 * marked read); each result opens its thread. */
export function InboxSearchResults({
  author,
  authors,
  query,
  onOpen,
  onError,
}: {
  author: Author;
  authors: Author[];
  query: string;
  onOpen(messageId: string): void;
  onError(error: ApiError): void;
}) {
  const { t } = useTranslation();
  const found = useQuery(searchQuery(author.id, query));
  if (found.isPending) return <Spinner />;
  if (found.error) return <Banner tone="danger">{errorText(t, found.error)}</Banner>;
  const list = found.data;
  return (
    <section aria-live="polite">
      <p className="muted small search-count" data-testid="search-count">
        {t("inboxThreads.search.found", { count: list.length, query })}
      </p>
      {list.length === 0 ? (
        <EmptyState icon={<Search size={28} />} title={t("inboxThreads.search.noneTitle")} body={t("inboxThreads.search.noneBody")} />
      ) : (
        <ul className="bus-list" data-testid="search-results">
          {list.map((m) => (
            <MessageCard
              key={m.id}
              message={m}
              author={author}
              authors={authors}
              side={m.to === author.id ? "inbox" : "sent"}
              onOpen={() => onOpen(m.id)}
              onError={onError}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
