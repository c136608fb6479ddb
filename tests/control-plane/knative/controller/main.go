// Knative Serving's controller (knative.dev/serving/cmd/controller) with the same reconcilers, for the tests' control
// plane: only its health-probe server is off, since it listens on :8080 on every address, where the autoscaler's
// stat server listens too (in a cluster each has a pod of its own). cmd/controller also starts the certificate
// reconciler when config-network asks for cert-manager; the tests' config does not.
package main

import (
	"knative.dev/pkg/injection"
	"knative.dev/pkg/injection/sharedmain"
	"knative.dev/pkg/signals"
	"knative.dev/serving/pkg/reconciler/configuration"
	"knative.dev/serving/pkg/reconciler/domainmapping"
	"knative.dev/serving/pkg/reconciler/gc"
	"knative.dev/serving/pkg/reconciler/labeler"
	"knative.dev/serving/pkg/reconciler/nscert"
	"knative.dev/serving/pkg/reconciler/revision"
	"knative.dev/serving/pkg/reconciler/route"
	"knative.dev/serving/pkg/reconciler/serverlessservice"
	"knative.dev/serving/pkg/reconciler/service"
)

func main() {
	ctx := sharedmain.WithHealthProbesDisabled(signals.NewContext())
	cfg := injection.ParseAndGetRESTConfigOrDie()
	sharedmain.MainWithConfig(ctx, "controller", cfg,
		configuration.NewController,
		labeler.NewController,
		revision.NewController,
		route.NewController,
		serverlessservice.NewController,
		service.NewController,
		gc.NewController,
		nscert.NewController,
		domainmapping.NewController,
	)
}
