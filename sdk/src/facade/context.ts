import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import { type Paged, pagedByCursor, pagedByNumber } from '../paging.js';
import type { CallOptions } from '../transport.js';
import type { Body, Item, Query, Walk } from './types.js';

/** Retrieval. Bundles and manifests are revalidated with If-None-Match: an unchanged one costs no body. */
export const contextPart = (ops: Operations) => {
  const part = {
    /** A playbook with its ranked context; a 304 is answered from the store (it still counts as a retrieval). */
    bundle: (query: Query<T.GetBundleData>, call?: CallOptions) => ops.send(op.getBundle, { path: ops.path(), query }, call),
    /** The same ranking without content, with summaries and token estimates; kept and revalidated like bundles. */
    manifest: (query: Query<T.GetManifestData>, call?: CallOptions) => ops.send(op.getManifest, { path: ops.path(), query }, call),
    /**
     * Context for a question asked as a sentence: nodes found by its words and its meaning, and the nodes linked
     * from them, each with its reason. Counts as a retrieval; only reads, so it is retried like a GET.
     */
    query: (body: Body<T.QueryContextData>, call?: CallOptions) => ops.send(op.queryContext, { path: ops.path(), body }, call),
    /** How far the embeddings of the workspace's nodes are, and the model and dimension in use. */
    embeddings: (call?: CallOptions) => ops.send(op.getEmbeddingStatus, { path: ops.path() }, call),
    /** The nodes reached from one node by its links, ranked; not counted as a retrieval. */
    follow: (nodeId: string, query: Query<T.FollowLinksData> = {}, call?: CallOptions) =>
      ops.send(op.followLinks, { path: ops.path({ nodeId }), query }, call),
    /** Every node changed since `since`, oldest first, page after page (each asks from the last page's `cursor`), until one is empty. */
    updates: (query: Query<T.ContextUpdatesData>, call?: CallOptions): Paged<Item<T.ContextUpdatesResponse['nodes']>, T.ContextUpdatesResponse> =>
      pagedByCursor(
        query,
        (q) => part.updatesPage(q, call),
        (r) => r.nodes,
        // Only an empty page is the last: the service holds a run of equal timestamps back for the next page, so a
        // page shorter than the limit may still have more after it.
        (r, q) => (r.nodes.length === 0 ? undefined : { ...q, cursor: r.cursor }),
      ),
    updatesPage: (query: Query<T.ContextUpdatesData>, call?: CallOptions) => ops.send(op.contextUpdates, { path: ops.path(), query }, call),
  };
  return part;
};

export const annotationsPart = (ops: Operations) => {
  const part = {
    create: (body: Body<T.CreateAnnotationData>, call?: CallOptions) => ops.send(op.createAnnotation, { path: ops.path(), body }, call),
    /** Every annotation the caller may see, oldest first, page after page. */
    list: (query: Walk<T.ListAnnotationsData> = {}, call?: CallOptions): Paged<Item<T.ListAnnotationsResponse['annotations']>, T.ListAnnotationsResponse> =>
      pagedByNumber((page) => part.page({ ...query, page }, call), (r) => r.annotations, query.page),
    page: (query: Query<T.ListAnnotationsData> = {}, call?: CallOptions) => ops.send(op.listAnnotations, { path: ops.path(), query }, call),
    delete: (annotationId: string, call?: CallOptions) => ops.send(op.deleteAnnotation, { path: ops.path({ annotationId }) }, call),
  };
  return part;
};

export const feedbackPart = (ops: Operations) => {
  const part = {
    create: (body: Body<T.CreateFeedbackData>, call?: CallOptions) => ops.send(op.createFeedback, { path: ops.path(), body }, call),
    /** Every feedback item matching the query (editors), newest first, page after page. */
    list: (query: Walk<T.ListFeedbackData> = {}, call?: CallOptions): Paged<Item<T.ListFeedbackResponse['feedback']>, T.ListFeedbackResponse> =>
      pagedByNumber((page) => part.page({ ...query, page }, call), (r) => r.feedback, query.page),
    page: (query: Query<T.ListFeedbackData> = {}, call?: CallOptions) => ops.send(op.listFeedback, { path: ops.path(), query }, call),
    triage: (feedbackId: string, body: Body<T.TriageFeedbackData>, call?: CallOptions) =>
      ops.send(op.triageFeedback, { path: ops.path({ feedbackId }), body }, call),
  };
  return part;
};
