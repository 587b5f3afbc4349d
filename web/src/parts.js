// What the page makes of one part of an agent's message (the @a2a-js/sdk 1.0 shape:
// `content.$case`, `metadata`, `mediaType`). Its own module so that `node --test` can check
// it without a browser.

/** The media types an A2UI data part is marked with (`mediaType`, or `metadata.mimeType`). */
export const A2UI_MIME_TYPES = new Set(['application/json+a2ui', 'application/a2ui+json']);

/**
 * `status`: a passing status line ("The model is reading the prompt…"), marked
 * `a2uiAgentStatus` by the server: shown until the next update, never kept in the reply;
 * `text`: reply text; `a2ui`: an A2UI message for the renderer; `null`: anything else.
 */
export function kindOf(part) {
  const content = part?.content;
  if (content?.$case === 'text') {
    return part.metadata?.a2uiAgentStatus === true ? 'status' : 'text';
  }
  if (content?.$case === 'data' && (A2UI_MIME_TYPES.has(part.mediaType) || A2UI_MIME_TYPES.has(part.metadata?.mimeType))) {
    return 'a2ui';
  }
  return null;
}
