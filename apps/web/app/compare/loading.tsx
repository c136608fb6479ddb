import { PageLoading } from "@/components/page-loading";

export default function Loading() {
  return <PageLoading what="comparison" />;
}
