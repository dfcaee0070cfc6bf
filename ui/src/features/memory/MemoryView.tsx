import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Brain, Plus, Search, Trash2 } from "lucide-react";

import { api, type ApiError, type Memory } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { useDates } from "../../app/dates";
import { Button, IconButton } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { Snippet } from "../../components/Snippet";
import { Spinner } from "../../components/Spinner";
import { useDebounced } from "../../components/useDebounced";
import { useRoute } from "../../app/route";
import { catalogKeys } from "../catalog/queries";
import { authorsQuery } from "../inbox/queries";
import { MemoryDialog } from "./MemoryDialog";

/** The desktop user's long-term memory: recent first, searched as you type
 * (BM25). "Whose" switches to a role's own memories (issue 15: what a woken
 * role keeps for itself), read and tidied here (deleted, not edited: they
 * are the role's notes, not the person's); the URL holds the role
 * (`#/memory/<role id>`), so a role's page links to them. */
export function MemoryView() {
  const { t } = useTranslation();
  const [route, navigate] = useRoute();
  const authors = useQuery(authorsQuery);
  const roles = (authors.data ?? []).filter((a) => a.kind !== "user");
  const role = route.view === "memory" ? route.section : null;
  const [query, setQuery] = useState("");
  const settled = useDebounced(query.trim(), 120);
  const [open, setOpen] = useState<Memory | "new" | null>(null);
  const recent = useQuery<Memory[], ApiError>({
    queryKey: [...catalogKeys.memories, "recent", role],
    queryFn: () => api.listMemories(200, undefined, role),
  });
  const results = useQuery({
    queryKey: [...catalogKeys.memories, "search", settled, role],
    queryFn: () => api.searchMemories(settled, 50, role),
    enabled: settled.length > 0,
  });
  const { when, exact } = useDates();
  // A role's memories are read here, not edited: a card opens nothing.
  const Card = role ? "div" : "button";
  const client = useQueryClient();
  const [doomed, setDoomed] = useState<Memory | null>(null);
  const remove = useMutation<null, ApiError, Memory>({
    mutationFn: (memory) => api.deleteMemory(memory.title, role),
    onSuccess: () => {
      setDoomed(null);
      void client.invalidateQueries({ queryKey: catalogKeys.memories });
    },
  });
  const forget = (memory: Memory) =>
    role && (
      <IconButton
        className="memory-forget"
        label={t("rolePage.memory.delete", { title: memory.title })}
        tone="danger"
        onClick={() => setDoomed(memory)}
        data-testid={`delete-memory-${memory.title}`}
      >
        <Trash2 size={14} />
      </IconButton>
    );

  return (
    <div className="page">
      <header className="view-head view-head-row">
        <div>
          <h1>{t("memory.title")}</h1>
          <p className="muted">{t("memory.subtitle")}</p>
        </div>
        {!role && (
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => setOpen("new")} data-testid="new-memory">
            {t("memory.new")}
          </Button>
        )}
      </header>
      <div className="memory-whose">
        <label htmlFor="memory-whose" className="field-label">
          {t("rolePage.memory.whose")}
        </label>
        <select id="memory-whose" className="input" value={role ?? ""} onChange={(e) => navigate("memory", e.target.value || null)} data-testid="memory-whose">
          <option value="">{t("rolePage.memory.mine")}</option>
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {t("rolePage.memory.ofRole", { name: r.name })}
            </option>
          ))}
        </select>
        {role && <p className="muted small">{t("rolePage.memory.roleHint")}</p>}
      </div>
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
                <Card className="card memory-card" onClick={role ? undefined : () => setOpen(hit.memory)} data-testid={`memory-hit-${hit.memory.title}`}>
                  <span className="memory-title">{hit.memory.title}</span>
                  <Snippet parts={hit.snippet} />
                  {forget(hit.memory)}
                </Card>
              </li>
            ))}
          </ul>
        </section>
      ) : recent.isPending ? (
        <Spinner />
      ) : recent.isError ? (
        <Banner tone="danger">{errorText(t, recent.error)}</Banner>
      ) : (recent.data ?? []).length === 0 ? (
        <EmptyState
          icon={<Brain size={28} />}
          title={role ? t("rolePage.memory.emptyTitle") : t("memory.emptyTitle")}
          body={role ? t("rolePage.memory.emptyBody") : t("memory.emptyBody")}
        />
      ) : (
        <ul className="memory-list">
          {(recent.data ?? []).map((memory) => (
            <li key={memory.id}>
              <Card className="card memory-card" onClick={role ? undefined : () => setOpen(memory)} data-testid={`memory-${memory.title}`}>
                <span className="memory-title">{memory.title}</span>
                <span className="memory-content">{memory.content}</span>
                <time className="muted small" dateTime={memory.updatedAt} title={exact(memory.updatedAt)}>
                  {when(memory.updatedAt)}
                </time>
                {forget(memory)}
              </Card>
            </li>
          ))}
        </ul>
      )}
      {doomed && (
        <ConfirmDialog
          title={t("rolePage.memory.deleteTitle", { title: doomed.title })}
          body={remove.error ? errorText(t, remove.error) : t("rolePage.memory.deleteBody")}
          busy={remove.isPending}
          onConfirm={() => remove.mutate(doomed)}
          onCancel={() => setDoomed(null)}
          confirmTestId="confirm-delete-memory"
        />
      )}
      {open && <MemoryDialog memory={open === "new" ? undefined : open} onClose={() => setOpen(null)} />}
    </div>
  );
}
