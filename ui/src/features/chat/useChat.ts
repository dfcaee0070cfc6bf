// The chat's run, held above the open conversation. Editing a message or
// asking again sends it in a new branch (a forked conversation), so the run
// that answers must outlive the thread it was started from; it says which
// conversation it belongs to, and a thread shows only its own.

import { useCallback, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";

import { runtimeApi, type Run } from "../../api";
import { runtimeKeys } from "../runs/queries";
import { useRun, type RunHandle, type RunStarter } from "../runs/useRun";

/** The message just sent, shown until the history has it. */
export interface Sending {
  text: string;
  /** How many messages the conversation had before it. */
  before: number;
  images: number;
}

export interface ChatSession {
  run: RunHandle;
  /** The conversation the run belongs to. */
  conversationId: string | null;
  sending: Sending | null;
  /** Sends `text` (and the images, artifact ids) and follows the answer. */
  send(conversationId: string, text: string, images: string[], before: number): Promise<Run | null>;
  /** Resumes an interrupted run of the conversation. */
  resume(conversationId: string, runId: string): Promise<Run | null>;
}

export function useChat(): ChatSession {
  const client = useQueryClient();
  const run = useRun();
  const { start } = run;
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [sending, setSending] = useState<Sending | null>(null);

  const follow = useCallback(
    async (id: string, starter: RunStarter) => {
      const refresh = () => {
        void client.invalidateQueries({ queryKey: runtimeKeys.history(id) });
        // Also the conversation's resume offer, which sits under this key.
        void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
      };
      setConversationId(id);
      const started = await start((onEvent) =>
        starter((event) => {
          if (event.type === "started") refresh();
          onEvent(event);
        }),
      );
      setSending(null);
      refresh();
      return started;
    },
    [client, start],
  );

  const send = useCallback(
    (id: string, text: string, images: string[], before: number) => {
      setSending({ text, before, images: images.length });
      return follow(id, (onEvent) => runtimeApi.sendChatMessage(id, text, images, onEvent));
    },
    [follow],
  );
  const resume = useCallback((id: string, runId: string) => follow(id, (onEvent) => runtimeApi.resumeRun(runId, onEvent)), [follow]);

  return { run, conversationId, sending, send, resume };
}
