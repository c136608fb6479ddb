package js

// k6/http registers itself with the module registry.
import _ "github.com/opsbench/opsbench/engine/internal/js/modules/http"
