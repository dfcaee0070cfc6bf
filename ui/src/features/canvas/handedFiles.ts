// Files handed to the app (`colmena-desktop notes.md`, at launch or by a
// second launch) go onto the canvas the window shows, as a drop would
// (issue 16). The window switches to the canvas view when files wait; the
// canvas page adds them one by one and says how each went.

import { useCallback, useEffect, useRef, useState } from "react";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { ApiError, onFilesHanded, shellApi } from "../../api";
import { errorText } from "../../app/errorText";
import { useListen } from "../../app/useListen";
import { canvasKeys } from "./queries";

const handedFilesQuery = queryOptions({ queryKey: ["handed-files"] as const, queryFn: shellApi.handedFiles });

/** In the shell: listens for handed files and, when some wait, opens the canvas view. */
export function useHandedFilesOpenTheCanvas(view: string, navigate: (view: string) => void) {
  const client = useQueryClient();
  const waiting = useQuery(handedFilesQuery).data;
  // Once per batch: the person may go elsewhere while files wait (say, for
  // a canvas to exist).
  const shownFor = useRef("");
  const listen = useCallback(
    () => onFilesHanded(() => void client.invalidateQueries({ queryKey: handedFilesQuery.queryKey })),
    [client],
  );
  useListen(listen, "files handed to Colmena");
  useEffect(() => {
    const batch = (waiting ?? []).join("\n");
    if (!batch || batch === shownFor.current) return;
    shownFor.current = batch;
    if (view !== "canvas") navigate("canvas");
  }, [waiting, view, navigate]);
}

export interface HandedNote {
  key: string;
  ok: boolean;
  text: string;
}

function nameOf(path: string) {
  return path.split(/[\\/]/).pop() ?? path;
}

/** On the canvas page: puts the waiting files on `canvasId`; the notes say how each went. */
export function useHandedFiles(canvasId: string | undefined): HandedNote[] {
  const { t } = useTranslation();
  const client = useQueryClient();
  const waiting = useQuery(handedFilesQuery).data;
  const [notes, setNotes] = useState<HandedNote[]>([]);
  const adding = useRef(false);
  useEffect(() => {
    if (!canvasId || !waiting?.length || adding.current) return;
    adding.current = true;
    void (async () => {
      for (const path of waiting) {
        const name = nameOf(path);
        try {
          await shellApi.addHandedFile(canvasId, path);
          setNotes((n) => [...n, { key: path + Date.now(), ok: true, text: t("canvas.handed.added", { name }) }]);
        } catch (error) {
          const why = error instanceof ApiError ? errorText(t, error) : String(error);
          setNotes((n) => [...n, { key: path + Date.now(), ok: false, text: t("canvas.handed.failed", { error: why }) }]);
        }
      }
      adding.current = false;
      await client.invalidateQueries({ queryKey: handedFilesQuery.queryKey });
      await client.invalidateQueries({ queryKey: canvasKeys.all });
    })();
  }, [canvasId, waiting, client, t]);
  return notes;
}
