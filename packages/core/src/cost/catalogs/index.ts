// The built-in price catalogs. Each file holds one product's entries with their
// source and date; a new price sheet is a new version (a new entry), never an edit
// of an old one, so costs computed with an old version can still be reproduced.
import { priceCatalogEntry, type PriceCatalogEntry } from "../price-catalog";
import { asgT3MediumAlb, asgT3MediumClassicElb, ec2T3Medium, eksT3Medium, eksT3MediumNodes } from "./aws-ec2";
import { cloudLogging } from "./cloud-logging";
import { cloudRunInstanceBased, cloudRunRequestBased } from "./cloud-run";
import { iotStudyCloudRun, iotStudyGke } from "./iot-study";
import { lambdaX86UsEast1 } from "./lambda";

export const BUILTIN_PRICE_CATALOGS: readonly PriceCatalogEntry[] = [
  iotStudyGke,
  iotStudyCloudRun,
  cloudRunRequestBased,
  cloudRunInstanceBased,
  lambdaX86UsEast1,
  ec2T3Medium,
  eksT3Medium,
  eksT3MediumNodes,
  asgT3MediumClassicElb,
  asgT3MediumAlb,
  cloudLogging,
].map((e) => priceCatalogEntry.parse(e));
