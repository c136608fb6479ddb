// AWS serverful deployments of t3.medium (study 002's instance type), us-east-1,
// Linux on-demand, in USD. EC2 bills per second with a 60 s minimum per start.
import type { PriceCatalogEntryInput } from "../price-catalog";

const T3_MEDIUM_PER_HOUR = 0.0416;
const EKS_CLUSTER_PER_HOUR = 0.1;
const CLASSIC_ELB_PER_HOUR = 0.025;

const t3Medium = {
  kind: "reserved" as const,
  unit: "USD",
  nodeLabel: "t3.medium",
  pricePerNodeSecond: T3_MEDIUM_PER_HOUR / 3600,
  billingGranularitySeconds: 1,
  minimumSecondsPerNode: 60,
  egress: { pricePerGib: 0.09, freeGib: 0 },
};

export const ec2T3Medium: PriceCatalogEntryInput = {
  name: "aws-ec2-t3-medium-us-east-1",
  version: "2026-11",
  source: "https://aws.amazon.com/ec2/pricing/on-demand/",
  date: "2026-11-21",
  description:
    "t3.medium (2 vCPU, 4 GiB) Linux on-demand: $0.0416 per hour, billed per second, at least 60 s per start. " +
    "T3 instances run 'unlimited' by default: sustained CPU above the baseline adds surplus-credit charges not counted here. " +
    "Egress to the internet $0.09 per GB (first 10 TB tier).",
  model: t3Medium,
};

export const eksT3Medium: PriceCatalogEntryInput = {
  name: "aws-eks-t3-medium-us-east-1",
  version: "2026-11",
  source: "https://aws.amazon.com/eks/pricing/",
  date: "2026-11-21",
  description:
    "An EKS cluster on standard support ($0.10 per cluster-hour, per second) with a managed node group of t3.medium " +
    "($0.0416 per hour, https://aws.amazon.com/ec2/pricing/on-demand/). Extended support costs $0.60 per hour instead. " +
    "A load balancer in front is not included (see aws-asg-t3-medium-classic-elb-us-east-1 for its hours).",
  model: { ...t3Medium, fees: [{ label: "EKS control plane", perSecond: EKS_CLUSTER_PER_HOUR / 3600 }] },
};

export const asgT3MediumClassicElb: PriceCatalogEntryInput = {
  name: "aws-asg-t3-medium-classic-elb-us-east-1",
  version: "2026-11",
  source: "https://aws.amazon.com/elasticloadbalancing/pricing/",
  date: "2026-11-21",
  description:
    "An Auto Scaling Group of t3.medium ($0.0416 per hour, https://aws.amazon.com/ec2/pricing/on-demand/) behind a Classic " +
    "Load Balancer, as in study 002: $0.025 per load-balancer hour or partial hour. Its $0.008 per GB processed is not " +
    "counted (add a custom model for it).",
  model: {
    ...t3Medium,
    fees: [{ label: "Classic Load Balancer hours", perSecond: CLASSIC_ELB_PER_HOUR / 3600, billingGranularitySeconds: 3600 }],
  },
};
