import { realAgentSuite } from "./helpers/real-more-suite.js";

realAgentSuite({ cli: "copilot", agent: "copilot", label: "copilot-cli (GitHub Copilot CLI)" });
