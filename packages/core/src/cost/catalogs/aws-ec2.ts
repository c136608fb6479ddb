// AWS serverful deployments of t3.medium (study 002's instance type), us-east-1,
// Linux on-demand, in USD. EC2 bills per second with a 60 s minimum per start.
import type { PriceCatalogEntryInput } from "../price-catalog";

const T3_MEDIUM_PER_HOUR = 0.0416;
const EKS_CLUSTER_PER_HOUR = 0.1;
const CLASSIC_ELB_PER_HOUR = 0.025;
const ALB_PER_HOUR = 0.0225;
const ALB_PER_LCU_HOUR = 0.008;
/** A t3.medium's allocatable CPU on EKS: 2 vCPU less the kubelet's reservation (70m for 2 cores). */
const T3_MEDIUM_ALLOCATABLE_VCPU = 1.93;

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

export const eksT3MediumNodes: PriceCatalogEntryInput = {
  name: "aws-eks-t3-medium-us-east-1",
  version: "2026-11-nodes",
  source: "https://aws.amazon.com/eks/pricing/",
  date: "2026-11-25",
  description:
    "As version 2026-11 (EKS $0.10 per cluster-hour, t3.medium $0.0416 per hour), priced as billed: a kubernetes run's " +
    "ready pods packed onto t3.medium nodes by their CPU request (1.93 vCPU allocatable per node: 2 pods of study 002's " +
    "700m), at least 1 node, a node kept 600 s after it was last needed (the cluster autoscaler's default " +
    'scale-down-unneeded-time). Set basis "pods" for a shared cluster: each pod pays its share of a node.',
  model: {
    ...t3Medium,
    fees: [{ label: "EKS control plane", perSecond: EKS_CLUSTER_PER_HOUR / 3600 }],
    nodeVcpu: T3_MEDIUM_ALLOCATABLE_VCPU,
    minNodes: 1,
    scaleDownDelaySeconds: 600,
  },
};

export const asgT3MediumAlb: PriceCatalogEntryInput = {
  name: "aws-asg-t3-medium-alb-us-east-1",
  version: "2026-11",
  source: "https://aws.amazon.com/elasticloadbalancing/pricing/",
  date: "2026-11-25",
  description:
    "An Auto Scaling Group of t3.medium ($0.0416 per hour, https://aws.amazon.com/ec2/pricing/on-demand/) behind an " +
    "Application Load Balancer, as opsbench's aws-asg deploys it: $0.0225 per ALB-hour or partial hour, and $0.008 per " +
    "LCU-hour (an LCU: 25 new connections/s, 3,000 active connections, 1 GB processed per hour for EC2 targets, " +
    "1,000 rule evaluations/s; each hour billed on the highest). LCU-hours come from CloudWatch's ConsumedLCUs when " +
    "the run recorded them, else from the bytes and connections of the load.",
  model: {
    ...t3Medium,
    fees: [{ label: "Application Load Balancer hours", perSecond: ALB_PER_HOUR / 3600, billingGranularitySeconds: 3600 }],
    loadBalancerCapacity: { label: "ALB capacity units", pricePerLcuHour: ALB_PER_LCU_HOUR },
  },
};
