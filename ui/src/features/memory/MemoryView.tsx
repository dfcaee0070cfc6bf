import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Brain, Plus, Search } from "lucide-react";

import { api, type Memory } from "../../api";
import { useDates } from "../../app/dates";
import { Button } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { Snippet } from "../../components/Snippet";
import { Spinner } from "../../components/Spinner";
import { useDebounced } from "../../components/useDebounced";
import { catalogKeys } from "../catalog/queries";
import { MemoryDialog } from "./MemoryDialog";

/** The desktop user's long-term memory: recent first, searched as you type (BM25). */
export function MemoryView() {
  const { t } = useTranslation();
  const [query, setQuery] = useState("");
  const settled = useDebounced(query.trim(), 120);
  const [open, setOpen] = useState<Memory | "new" | null>(null);
  const recent = useQuery({ queryKey: [...catalogKeys.memories, "recent"], queryFn: () => api.listMemories(200) });
  const results = useQuery({
    queryKey: [...catalogKeys.memories, "search", settled],
    queryFn: () => api.searchMemories(settled, 50),
    enabled: settled.length > 0,
  });
  const { when, exact } = useDates();

  return (
    <div className="page">
      <header className="view-head view-head-row">
        <div>
          <h1>{t("memory.title")}</h1>
          <p className="muted">{t("memory.subtitle")}</p>
        </div>
        <Button variant="primary" icon={<Plus size={16} />} onClick={() => setOpen("new")} data-testid="new-memory">
          {t("memory.new")}
        </Button>
      </header>
      <div className="search-box search-box-large">
        <Search size={17} aria-hidden="true" />
        <input
          className="input"
          value={query}
          placeholder={t("memory.searchPlaceholder")}
          aria-label={t("memory.searchPlaceholder")}
          data-testid="memory-search"
          onChange={(e) => setQuery(e.target.value)}
        />
        {results.isFetching && <Spinner size={14} />}
      </div>

      {settled ? (
        <section aria-live="polite" data-testid="memory-results">
          <p className="muted small">{t("memory.resultCount", { count: results.data?.length ?? 0 })}</p>
          {results.data?.length === 0 && <p className="muted">{t("memory.noMatch", { query: settled })}</p>}
          <ul className="memory-list">
            {(results.data ?? []).map((hit) => (
              <li key={hit.memory.id}>
                <button className="card memory-card" onClick={() => setOpen(hit.memory)} data-testid={`memory-hit-${hit.memory.title}`}>
                  <span className="memory-title">{hit.memory.title}</span>
                  <Snippet parts={hit.snippet} />
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : recent.isPending ? (
        <Spinner />
      ) : (recent.data ?? []).length === 0 ? (
        <EmptyState icon={<Brain size={28} />} title={t("memory.emptyTitle")} body={t("memory.emptyBody")} />
      ) : (
        <ul className="memory-list">
          {(recent.data ?? []).map((memory) => (
            <li key={memory.id}>
              <button className="card memory-card" onClick={() => setOpen(memory)} data-testid={`memory-${memory.title}`}>
                <span className="memory-title">{memory.title}</span>
                <span className="memory-content">{memory.content}</span>
                <time className="muted small" dateTime={memory.updatedAt} title={exact(memory.updatedAt)}>
                  {when(memory.updatedAt)}
                </time>
              </button>
            </li>
          ))}
        </ul>
      )}
      {open && <MemoryDialog memory={open === "new" ? undefined : open} onClose={() => setOpen(null)} />}
    </div>
  );
}
