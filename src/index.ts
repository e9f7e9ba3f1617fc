export class SpaceDO {}; export class AgentDO {}; export default {}
