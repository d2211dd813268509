// The example app's game.js, cut down: three objects and who beats whom.
export const choices = ["rock", "paper", "scissors"];

const beats = { rock: "scissors", paper: "rock", scissors: "paper" };

export function getResult(p1, p2) {
    if (p1.objectName === p2.objectName) {
        return `<@${p1.id}> and <@${p2.id}> draw with ${p1.objectName}`;
    }
    const [winner, loser] = beats[p1.objectName] === p2.objectName ? [p1, p2] : [p2, p1];
    return `<@${winner.id}>'s ${winner.objectName} beats <@${loser.id}>'s ${loser.objectName}`;
}

export function getOptions() {
    return choices.map(c => ({ label: c, value: c, description: `Play ${c}` }));
}
