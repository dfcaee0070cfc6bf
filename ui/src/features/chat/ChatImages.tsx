// Images in chat (issue 14): the composer's attachments — dropped files are
// uploaded, the attach button opens the native dialog — shown as thumbnails
// that can be removed before sending, and the images of sent messages.

import { useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ImageOff, X } from "lucide-react";

import { runtimeApi, toApiError, type MessageImage } from "../../api";
import { errorText } from "../../app/errorText";
import { IconButton } from "../../components/Button";
import { Spinner } from "../../components/Spinner";
import { adding, failed, MAX_IMAGES, picked, readyIds, removed, stored, type Attachment } from "./attachments";

/** A file's bytes as base64, for the IPC. */
function toBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

/** The composer's attachments and what can be done with them. Updates go
 * through a ref as well as the state, so a drop of several files decides
 * each one against the list as it is (limit, refusals) before uploading. */
export function useAttachments() {
  const { t } = useTranslation();
  const [list, setList] = useState<Attachment[]>([]);
  const current = useRef<Attachment[]>([]);
  const next = useRef(0);
  const [picking, setPicking] = useState(false);
  const update = (change: (list: Attachment[]) => Attachment[]) => {
    current.current = change(current.current);
    setList(current.current);
  };

  const addFiles = (files: File[]) => {
    for (const file of files) {
      const key = `drop-${next.current++}`;
      update((l) => adding(l, key, file));
      if (!current.current.some((a) => a.key === key && a.status === "adding")) continue;
      void (async () => {
        try {
          const artifact = await runtimeApi.uploadChatImage(file.name, await toBase64(file));
          update((l) => stored(l, key, artifact));
        } catch (e) {
          update((l) => failed(l, key, toApiError(e)));
        }
      })();
    }
  };

  const pick = async () => {
    setPicking(true);
    try {
      const artifacts = await runtimeApi.pickChatImages(t("chat.images.pickTitle"));
      update((l) => picked(l, artifacts));
    } catch (e) {
      const key = `pick-${next.current++}`;
      update((l) => failed([...l, { key, name: "", status: "adding" }], key, toApiError(e)));
    } finally {
      setPicking(false);
    }
  };

  return {
    list,
    picking,
    ids: readyIds(list),
    addFiles,
    pick,
    remove: (key: string) => update((l) => removed(l, key)),
    clear: () => update(() => []),
    /** Puts back what a refused message carried. */
    restore: (kept: Attachment[]) => update(() => kept),
  };
}

/** The thumbnail of one of the owner's images (its copy for models). */
export function ChatImage({ artifactId, name }: { artifactId: string; name: string }) {
  const preview = useQuery({
    queryKey: ["chat-image", artifactId],
    queryFn: () => runtimeApi.chatImagePreview(artifactId),
    staleTime: Infinity,
  });
  if (!preview.data) return <div className="chat-thumb placeholder" aria-hidden="true" />;
  return (
    <img
      className="chat-thumb"
      src={`data:${preview.data.mime};base64,${preview.data.dataBase64}`}
      alt={name}
      title={name}
      data-testid="chat-thumb"
    />
  );
}

/** The attachments under the composer's text, each removable. */
export function AttachmentStrip({ list, onRemove }: { list: Attachment[]; onRemove(key: string): void }) {
  const { t } = useTranslation();
  if (list.length === 0) return null;
  return (
    <ul className="chat-attachments" aria-label={t("chat.images.attached", { count: readyIds(list).length })} data-testid="chat-attachments">
      {list.map((a) => (
        <li key={a.key} className={`chat-attachment chat-attachment-${a.status}`} data-testid={`attachment-${a.status}`}>
          {a.status === "ready" && <ChatImage artifactId={a.artifactId} name={a.name} />}
          {a.status === "adding" && (
            <div className="chat-thumb placeholder" title={t("chat.images.adding", { name: a.name })}>
              <Spinner size={14} />
            </div>
          )}
          {(a.status === "refused" || a.status === "failed") && (
            <p className="chat-attachment-problem small" role="alert">
              {a.status === "failed"
                ? errorText(t, a.error)
                : a.reason === "too_many"
                  ? t("chat.images.tooMany", { max: MAX_IMAGES })
                  : t("chat.images.unsupported", { name: a.name })}
            </p>
          )}
          <IconButton label={t("chat.images.remove", { name: a.name })} className="chat-attachment-remove" onClick={() => onRemove(a.key)} data-testid="remove-attachment">
            <X size={12} />
          </IconButton>
        </li>
      ))}
    </ul>
  );
}

/** The images a sent message carried; one no longer stored says so. */
export function MessageImages({ images }: { images: MessageImage[] }) {
  const { t } = useTranslation();
  if (images.length === 0) return null;
  return (
    <div className="message-images" data-testid="message-images">
      {images.map((image, i) =>
        image.modelArtifactId ? (
          <ChatImage key={`${image.modelArtifactId}-${i}`} artifactId={image.modelArtifactId} name={image.name} />
        ) : (
          <span key={`gone-${i}`} className="chat-thumb gone small muted" title={t("chat.images.gone", { name: image.name })}>
            <ImageOff size={16} /> {t("chat.images.gone", { name: image.name })}
          </span>
        ),
      )}
    </div>
  );
}
