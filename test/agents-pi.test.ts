import { realAgentSuite } from "./helpers/real-more-suite.js";

realAgentSuite({ cli: "pi", agent: "pi", label: "pi" });
