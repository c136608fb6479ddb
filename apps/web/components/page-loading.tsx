// What a page shows while the server renders it (app/**/loading.tsx): a spinner with words, for screen readers a
// polite status, and grey blocks where the page's header and panels will be, so the layout does not jump.
export function PageLoading({ what = "page" }: { what?: string }) {
  return (
    <div data-testid="page-loading" className="space-y-4">
      <p role="status" className="flex items-center gap-2 text-xs text-zinc-600">
        <span aria-hidden="true" className="inline-block size-4 animate-spin rounded-full border-2 border-zinc-300 border-t-zinc-700" />
        Loading the {what}…
      </p>
      <div aria-hidden="true" className="animate-pulse space-y-4">
        <div className="h-5 w-64 rounded bg-zinc-200" />
        <div className="grid gap-4 md:grid-cols-2 2xl:grid-cols-3">
          <div className="h-40 rounded-md border border-zinc-200 bg-white" />
          <div className="h-40 rounded-md border border-zinc-200 bg-white" />
          <div className="hidden h-40 rounded-md border border-zinc-200 bg-white 2xl:block" />
        </div>
        <div className="h-64 rounded-md border border-zinc-200 bg-white" />
      </div>
    </div>
  );
}
