import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, GitBranch, PenLine } from "lucide-react";

import { canvasApi, type ApiError, type Round, type Variant } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Segmented } from "../../components/Segmented";
import { Spinner } from "../../components/Spinner";
import { useDates } from "../../app/dates";
import { errorText } from "../../app/errorText";
import { clientName } from "../../app/names";
import { Markdown } from "../../components/Markdown";
import { diffPhrases, readableText, roundAuthor, settingChanges, type DiffPart } from "./diff";
import { canvasKeys, roundsQuery } from "./queries";
import { tokenCount, tokenTotal } from "../runs/tokens";

/** The Rounds view of a variant (SPEC C4, D1): its whole history with the
 * model, tokens, latency and client of each round; pick the one shown;
 * compare any two side by side — the text's changes grouped into phrases,
 * and what was different in prompt, style and model — and fork a new
 * variant from a round. Rounds written by hand say so. A round is never
 * compared with itself: with one round, or A and B on the same one, the
 * round is shown alone. */
export function RoundsDialog({ variant, onClose }: { variant: Variant; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const rounds = useQuery(roundsQuery(variant.id));
  const list = rounds.data ?? [];
  const last = list.length - 1;
  const [left, setLeft] = useState<number | null>(null);
  const [right, setRight] = useState<number | null>(null);
  // The diff reads as the panes do (rendered text) unless Markdown is asked for.
  const [diffMode, setDiffMode] = useState<"text" | "markdown">("text");
  const a = list[left ?? Math.max(0, last - 1)];
  const b = list[right ?? last];
  const comparable = list.length > 1;
  const refresh = () => void client.invalidateQueries({ queryKey: canvasKeys.all });
  const select = useMutation<Variant, ApiError, number>({ mutationFn: (i) => canvasApi.selectRound(variant.id, i), onSettled: refresh });
  const fork = useMutation<Variant, ApiError, Round>({
    mutationFn: (round) =>
      canvasApi.addVariant(variant.canvasId, {
        presetId: variant.presetId,
        userPresetId: variant.userPresetId,
        prompt: round.promptSnapshot,
        style: round.styleSnapshot,
        typeTag: variant.typeTag,
        modelId: variant.modelId,
      }),
    onSuccess: () => {
      refresh();
      onClose();
    },
  });
  const { when, exact } = useDates();
  const failure = select.error ?? fork.error;

  return (
    <Dialog title={t("canvas.roundsTitle")} onClose={onClose} closeLabel={t("common.close")} testId="rounds-dialog" width={1080}>
      {rounds.isPending ? (
        <Spinner />
      ) : (
        <div className="rounds-view">
          {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
          <table className="rounds-table">
            <thead>
              <tr>
                <th>#</th>
                <th>{t("canvas.model")}</th>
                <th>{t("canvas.tokens")}</th>
                <th>{t("canvas.latency")}</th>
                <th>{t("canvas.client")}</th>
                <th>{t("canvas.when")}</th>
                {comparable && <th>{t("canvas.compare")}</th>}
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id} className={r.index === variant.activeRound ? "active" : ""} data-testid={`round-${r.index}`}>
                  <td>{r.index + 1}</td>
                  <td>
                    <AuthorLabel round={r} />
                  </td>
                  <td
                    title={r.model && tokenTotal(r) === null ? t("canvas.tokensNotReported") : undefined}
                    data-testid={`round-tokens-${r.index}`}
                  >
                    {r.model ? tokenCount(tokenTotal(r)) : "—"}
                  </td>
                  <td>{r.model ? `${r.latencyMs} ms` : "—"}</td>
                  <td>{clientName(t, r.client)}</td>
                  <td title={exact(r.generatedAt)}>{when(r.generatedAt)}</td>
                  {comparable && (
                  <td className="compare-picks">
                    <label>
                      <input type="radio" name="left" checked={a?.index === r.index} onChange={() => setLeft(r.index)} data-testid={`compare-a-${r.index}`} /> A
                    </label>
                    <label>
                      <input type="radio" name="right" checked={b?.index === r.index} onChange={() => setRight(r.index)} data-testid={`compare-b-${r.index}`} /> B
                    </label>
                  </td>
                  )}
                  <td>
                    <div className="round-actions">
                    {r.index === variant.activeRound ? (
                      <span className="badge badge-accent">
                        <Check size={12} /> {t("canvas.shown")}
                      </span>
                    ) : (
                      <Button size="sm" onClick={() => select.mutate(r.index)} data-testid={`use-round-${r.index}`}>
                        {t("canvas.useRound")}
                      </Button>
                    )}
                    <Button size="sm" variant="ghost" icon={<GitBranch size={13} />} onClick={() => fork.mutate(r)} data-testid={`fork-round-${r.index}`}>
                      {t("canvas.fork")}
                    </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {b && (!a || a.index === b.index) && (
            <div className="round-single" data-testid="round-single">
              <h4>{t("canvas.roundN", { n: b.index + 1 })}</h4>
              {comparable && <p className="muted small">{t("canvas.pickTwoRounds")}</p>}
              <div className="round-text">
                <Markdown source={b.output} />
              </div>
            </div>
          )}
          {a && b && a.index !== b.index && (
            <div className="compare" data-testid="round-compare">
              <div className="compare-side">
                <h4>{t("canvas.roundN", { n: a.index + 1 })}</h4>
                <div className="round-text">
                  <Markdown source={a.output} />
                </div>
              </div>
              <div className="compare-side">
                <h4>{t("canvas.roundN", { n: b.index + 1 })}</h4>
                <div className="round-text">
                  <Markdown source={b.output} />
                </div>
              </div>
              <div className="compare-diff">
                <div className="compare-diff-head">
                  <h4>{t("canvas.diffTitle", { a: a.index + 1, b: b.index + 1 })}</h4>
                  <Segmented<"text" | "markdown">
                    label={t("canvas.diffMode.label")}
                    value={diffMode}
                    onChange={setDiffMode}
                    options={[
                      { value: "text", label: t("canvas.diffMode.text"), testId: "diff-mode-text" },
                      { value: "markdown", label: t("canvas.diffMode.markdown"), testId: "diff-mode-markdown" },
                    ]}
                  />
                </div>
                <p className="round-text round-diff" data-testid="round-diff" data-mode={diffMode}>
                  <DiffText
                    parts={diffMode === "text" ? diffPhrases(readableText(a.output), readableText(b.output)) : diffPhrases(a.output, b.output)}
                  />
                </p>
              </div>
              <div className="compare-diff" data-testid="round-settings">
                <h4>{t("canvas.whatChanged")}</h4>
                {settingChanges(a, b).length === 0 ? (
                  <p className="muted small">{t("canvas.sameSettings")}</p>
                ) : (
                  <dl className="setting-changes">
                    {settingChanges(a, b).map((c) => (
                      <div key={c.field} className="setting-change" data-testid={`changed-${c.field}`}>
                        <dt>{t(`canvas.setting.${c.field}`)}</dt>
                        <dd>
                          {c.field === "model" ? (
                            <>
                              <del>
                                <AuthorLabel round={a} />
                              </del>{" "}
                              →{" "}
                              <ins>
                                <AuthorLabel round={b} />
                              </ins>
                            </>
                          ) : c.before && c.after ? (
                            <DiffText parts={diffPhrases(c.before, c.after)} />
                          ) : (
                            <>
                              <del>{c.before || t("canvas.none")}</del> → <ins>{c.after || t("canvas.none")}</ins>
                            </>
                          )}
                        </dd>
                      </div>
                    ))}
                  </dl>
                )}
              </div>
            </div>
          )}
        </div>
      )}
    </Dialog>
  );
}

/** A diff's parts, struck out and inserted. */
function DiffText({ parts }: { parts: DiffPart[] }) {
  return (
    <>
      {parts.map((part, i) =>
        part.kind === "same" ? (
          <span key={i}>{part.text}</span>
        ) : part.kind === "added" ? (
          <ins key={i}>{part.text}</ins>
        ) : (
          <del key={i}>{part.text}</del>
        ),
      )}
    </>
  );
}

/** Who wrote a round, as the rounds table and the comparison show it. */
function AuthorLabel({ round }: { round: Round }) {
  const { t } = useTranslation();
  const author = roundAuthor(round);
  if (author.kind === "model") return <>{author.model}</>;
  return (
    <span className="badge by-hand" data-testid={author.kind === "hand" ? "round-by-hand" : "round-by-client"}>
      <PenLine size={11} aria-hidden="true" />{" "}
      {author.kind === "hand" ? t("canvas.writtenByHand") : t("canvas.writtenBy", { client: clientName(t, author.client) })}
    </span>
  );
}
