import { PageLoading } from "@/components/page-loading";

// A loading.tsx sits in the segments whose pages never call notFound(): under a loading boundary the response has
// started (200) before the page runs, so a notFound() page (a share link, an invitation, a target's edit form)
// would no longer answer 404. The nav bar's links show their own spinner everywhere (components/app-nav.tsx).
export default function Loading() {
  return <PageLoading what="run" />;
}
