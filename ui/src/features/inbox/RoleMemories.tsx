// A role's own memories (issue 15): what its woken agent saved with the
// memory tools, kept under the role's scope and not its owner's. Read
// here; the Memory view shows the same list, searchable.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Brain, ExternalLink } from "lucide-react";

import { api, type ApiError, type Author, type Memory } from "../../api";
import { useDates } from "../../app/dates";
import { useRoute } from "../../app/route";
import { Button } from "../../components/Button";
import { Banner } from "../../components/Banner";
import { EmptyState } from "../../components/EmptyState";
import { errorText } from "../../app/errorText";
import { Spinner } from "../../components/Spinner";
import { catalogKeys } from "../catalog/queries";

export function RoleMemories({ author }: { author: Author }) {
  const { t } = useTranslation();
  const [, navigate] = useRoute();
  const { when, exact } = useDates();
  const memories = useQuery<Memory[], ApiError>({
    queryKey: [...catalogKeys.memories, "recent", author.id],
    queryFn: () => api.listMemories(200, undefined, author.id),
  });
  if (memories.isPending) return <Spinner />;
  if (memories.isError) return <Banner tone="danger">{errorText(t, memories.error)}</Banner>;
  const list = memories.data ?? [];
  return (
    <section className="role-memories" data-testid="role-memories">
      <div className="role-memories-head">
        <p className="muted small">{t("rolePage.memory.tabHint", { name: author.name })}</p>
        <Button size="sm" variant="secondary" icon={<ExternalLink size={14} />} onClick={() => navigate("memory", author.id)} data-testid="open-role-memory">
          {t("rolePage.memory.open")}
        </Button>
      </div>
      {list.length === 0 ? (
        <EmptyState icon={<Brain size={28} />} title={t("rolePage.memory.emptyTitle")} body={t("rolePage.memory.emptyBody")} />
      ) : (
        <ul className="memory-list">
          {list.map((memory) => (
            <li key={memory.id} className="card memory-card" data-testid={`role-memory-${memory.title}`}>
              <span className="memory-title">{memory.title}</span>
              <span className="memory-content">{memory.content}</span>
              <time className="muted small" dateTime={memory.updatedAt} title={exact(memory.updatedAt)}>
                {when(memory.updatedAt)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Longest stretch of the standing instructions the header shows. */
const INSTRUCTIONS_PREVIEW = 160;

/** A role's own scope in its header's facts (issue 15): its standing
 * instructions, briefly (all of them on hover and in Edit), and its own
 * skills. Nothing when it has neither. */
export function RoleScopeFacts({ author }: { author: Author }) {
  const { t } = useTranslation();
  const text = author.instructions.trim();
  const preview = text.length > INSTRUCTIONS_PREVIEW ? `${text.slice(0, INSTRUCTIONS_PREVIEW).trimEnd()}…` : text;
  return (
    <>
      {text && (
        <>
          <dt>{t("roleScope.instructions")}</dt>
          <dd className="role-instructions" title={text} data-testid="role-instructions-fact">
            {preview}
          </dd>
        </>
      )}
      {author.skills.length > 0 && (
        <>
          <dt>{t("roleScope.skillsFact")}</dt>
          <dd data-testid="role-skills-fact">{author.skills.join(", ")}</dd>
        </>
      )}
    </>
  );
}
